/** A Node.js release line: Active LTS start, Maintenance LTS start and end of life (YYYY-MM-DD). */
export interface NodeRelease {
  lts: string;
  maintenance: string;
  end: string;
}
/** The LTS lines by major version, from the Node.js release schedule. */
export const NODE_RELEASES: Record<number, NodeRelease>;
/** The lines .ci/run runs the test suite on besides the machine's own Node.js. */
export const CI_NODE_VERSIONS: number[];
/** Why Node.js `major` is not a line the Dockerfiles may build on at `today` (YYYY-MM-DD), or undefined. */
export function imageNodeProblem(major: number, today?: string): string | undefined;
