/**
 * Applies the output caps (SPEC O1) to a finished text through the call's capture, so the full
 * text is spilled to a file the model can read when it is cut.
 */
import type { ToolContext } from '../core/tool';

export interface Capped {
  readonly output: string;
  readonly truncated: boolean;
  readonly spillPath?: string;
}

export async function capText(context: ToolContext, text: string): Promise<Capped> {
  const capture = context.captureOutput();
  capture.append(text);
  const capped = await capture.finish();
  return { output: capped.text, truncated: capped.truncated, ...(capped.spillPath ? { spillPath: capped.spillPath } : {}) };
}
