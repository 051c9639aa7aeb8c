/** Checks infra/ of the repository at `root` (default: this repository); resolves the files read and the problems found. */
export function checkInfra(root?: string): Promise<{ files: string[]; problems: string[] }>;
