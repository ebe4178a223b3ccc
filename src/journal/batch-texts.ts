// The JSON of a group commit's commands, made once (docs/journal.md "Snapshots: a shadow state on a
// worker thread"): the journal stores it, and the snapshot thread is sent the same text, so the
// server's thread stringifies each command once, not once per reader. The segment journal stores
// one record per command (one text each); the journal table takes the batch as one JSON array.

/** A batch's commands as JSON: one text per command, or the whole array's text. */
export type BatchTexts = readonly string[] | string;

/** One text per command, as the segment journal's records hold them. */
export function commandTexts(cmds: readonly unknown[]): string[] {
  return cmds.map((c) => JSON.stringify(c));
}

/** The batch as one JSON array: the same text as `JSON.stringify(cmds)` for the commands of `texts`. */
export function batchJson(texts: BatchTexts): string {
  return typeof texts === 'string' ? texts : `[${texts.join(',')}]`;
}
