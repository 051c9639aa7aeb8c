// The Node.js versions this repository supports, in one place: scripts/infra-check.mjs holds the Dockerfiles'
// base image to them and .ci/run runs the test suite on each of CI_NODE_VERSIONS.
//
// Release lines, from the Node.js release schedule (https://github.com/nodejs/Release, schedule.json):
// `lts` is when a line becomes Active LTS, `maintenance` when it moves to Maintenance LTS, `end` its end of life.
// Only even lines get LTS; 25 was never LTS and from 27 on every line is (April release, LTS in October).
export const NODE_RELEASES = {
  20: { lts: '2023-10-24', maintenance: '2024-10-22', end: '2026-04-30' },
  22: { lts: '2024-10-29', maintenance: '2025-10-21', end: '2027-04-30' },
  24: { lts: '2025-10-28', maintenance: '2026-10-20', end: '2028-04-30' },
  26: { lts: '2026-10-28', maintenance: '2027-10-20', end: '2029-04-30' },
};

/**
 * The lines .ci/run runs the test suite on besides the machine's own Node.js (20, the oldest one `engines`
 * allows: `>=20.19`, which `npm start` and `npm test` keep working on).
 */
export const CI_NODE_VERSIONS = [24, 26];

/** The image lines the Dockerfiles may build on: tested in CI, in LTS and before their end of life on `today`. */
export function imageNodeProblem(major, today = new Date().toISOString().slice(0, 10)) {
  const release = NODE_RELEASES[major];
  if (!release) return `Node.js ${major} is not an LTS line (scripts/node-versions.mjs lists 20, 22, 24, 26)`;
  if (today >= release.end) return `Node.js ${major} reached its end of life on ${release.end}`;
  if (today < release.lts) return `Node.js ${major} is not LTS until ${release.lts}`;
  if (!CI_NODE_VERSIONS.includes(major)) return `Node.js ${major} is not tested in CI (CI_NODE_VERSIONS: ${CI_NODE_VERSIONS.join(', ')})`;
  return undefined;
}
