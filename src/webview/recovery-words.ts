/**
 * A chat that stopped mid-run (the window closed or reloaded) and its Resume button (issue 14
 * item 11). The prompt Resume sends is shared by the host, which sends it, and the view, which
 * draws it as "Resumed" on the recovery card instead of as a message the user typed.
 */

/**
 * What the model is told when the user presses Resume. The runtime's recovery notice, which names
 * the calls that were cut off, reaches the model just before it (SPEC R3).
 */
export const RESUME_PROMPT =
  'Continue the task from where you stopped. The recovery notice above names the calls that were cut off: check what they did before doing any of it again.';
