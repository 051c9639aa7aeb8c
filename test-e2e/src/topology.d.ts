// Types of the plain-JavaScript topology and contract helpers the suite drives.
declare module '*/scripts/topology/index.mjs' {
  export interface Topology {
    apiUrl: string;
    apiReplicaUrls: string[];
    mcpUrl: string;
    workerUrl: string;
    adminToken: string;
    names: string[];
    logs(name: string): string[];
    stopProcess(name: string, signal?: NodeJS.Signals): Promise<unknown>;
    startProcess(name: string): Promise<unknown>;
    restart(names?: string[], signal?: NodeJS.Signals): Promise<void>;
    stop(): Promise<void>;
  }
  export function startTopology(o: {
    databaseUrl: string; redisUrl: string; apiReplicas?: number; host?: string; adminToken?: string; env?: Record<string, string>;
    ports?: { proxy?: number; mcp?: number; worker?: number; api?: number }; onLog?: (name: string, line: string) => void;
  }): Promise<Topology>;
  export function createDatabase(adminUrl: string, name?: string): Promise<{ url: string; name: string; drop(): Promise<void> }>;
}
declare module '*/scripts/contract/prism.mjs' {
  export interface PrismStats { requests: number; validated: number; bypassed: number; violations: unknown[]; prismErrors: unknown[] }
  export function startPrism(o: { upstream: string; document?: string; onLog?: (line: string) => void }): Promise<{
    url: string; stats(): PrismStats; assertClean(): void; stop(): Promise<void>;
  }>;
}
declare module '*/scripts/contract/redocly.mjs' {
  export function lintOpenApi(file: string): unknown;
}
