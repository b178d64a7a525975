/** What makes build/ out of date under `root`: the missing stamp, or a file under src/ newer than it; undefined when it is current. */
export function buildOutdatedBy(root: string): string | undefined;
