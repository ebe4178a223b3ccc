// Types of bin/node-options.mjs (plain JavaScript: the container and `npm start` run it without a build).
export declare const SHIPPED_NODE_OPTIONS: string[];
export declare function serverNodeOptions(env?: Record<string, string | undefined>): string;
export declare function hasShippedNodeOptions(
  env?: Record<string, string | undefined>,
  execArgv?: string[],
): boolean;
