/**
 * Checks infra/ of the repository at `root` (default: this repository); resolves the files read and the problems found.
 * `today` (YYYY-MM-DD, default: today) is the date the Node.js release schedule (scripts/node-versions.mjs) is read at.
 */
export function checkInfra(root?: string, options?: { today?: string }): Promise<{ files: string[]; problems: string[] }>;
