/**
 * A call's output as the view keeps it: the tail, capped, with counts of what was dropped. Shared by
 * the top-level cards (media/transcript.ts) and a delegated task's child calls (media/delegation.ts),
 * so a child's output is capped exactly like its parent's (issue 14 item 3).
 */

/**
 * How much of a call's output the view keeps (the tail). The runtime already caps what the model
 * sees (SPEC O1); this cap only bounds the memory and DOM of a long-running command's live output.
 */
export const OUTPUT_KEEP_CHARS = 32_768;

export interface CallOutput {
  /** The tail of the output, at most OUTPUT_KEEP_CHARS. */
  output: string;
  /** How many characters of output were dropped from the front to respect the cap. */
  droppedOutputChars: number;
  /** Lines seen in the whole output, including what was dropped. */
  outputLines: number;
}

export function appendOutput(target: CallOutput, chunk: string): void {
  target.outputLines += countNewlines(chunk);
  let output = target.output + chunk;
  if (output.length > OUTPUT_KEEP_CHARS) {
    const cut = output.length - OUTPUT_KEEP_CHARS;
    // Start the kept tail at a line boundary when one is near, so the first line is whole.
    const newline = output.indexOf('\n', cut);
    const start = newline !== -1 && newline - cut < 512 ? newline + 1 : cut;
    target.droppedOutputChars += start;
    output = output.slice(start);
  }
  target.output = output;
}

/** Lines of output, counting a last line without its newline. */
export function outputLineCount(call: CallOutput): number {
  if (call.output === '') return call.outputLines;
  return call.outputLines + (call.output.endsWith('\n') ? 0 : 1);
}

/** "Output (3 lines)", or "Details" when only the arguments are there; undefined when there is nothing to show. */
export function detailsLabel(call: CallOutput & { readonly argumentsText: string }): string | undefined {
  const lines = outputLineCount(call);
  if (call.argumentsText.trim() === '' && lines === 0 && call.output === '') return undefined;
  return lines === 0 ? 'Details' : `Output (${lines} line${lines === 1 ? '' : 's'})`;
}

function countNewlines(text: string): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count += 1;
  return count;
}
