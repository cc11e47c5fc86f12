/**
 * Errors in the editor's words (issue 14 item 7): the runtime's messages name CLI flags and config
 * keys (`--base-url URL`, `model.max_steps`), which mean nothing in the sidebar. This rewrites them
 * into settings and commands and picks the buttons an error card offers. Pure and DOM-free: the
 * host uses it for the errors it posts, the view for stored messages it shows.
 */

export const ERROR_ACTIONS = ['retry', 'configure-model', 'set-api-key', 'open-settings'] as const;
export type ErrorAction = (typeof ERROR_ACTIONS)[number];

/** Longest rewrites first: a sentence is replaced before the flags inside it. */
const REWRITES: readonly (readonly [RegExp, string])[] = [
  [
    /No API key was sent: put the key in an environment variable and name it with --api-key-env VAR \(or model\.api_key_env in the config\), or set ZUNO_API_KEY\./g,
    'No API key was sent: set one with "Zuno: Set API Key".',
  ],
  [/Continue with --session \S+, or raise model\.max_steps\./g, 'Send a message to continue, or raise the zuno.model.maxSteps setting.'],
  [
    /No model is set: pass --model NAME, set model\.name in the config file, or set ZUNO_MODEL\./g,
    'No model is set: choose one with "Zuno: Select Model".',
  ],
  [
    /point Zuno elsewhere with --base-url URL \(or model\.base_url in the config\)/g,
    'point Zuno elsewhere with "Zuno: Select Model" (the zuno.model.baseUrl setting)',
  ],
  [/the URL given with --base-url or model\.base_url/g, 'the zuno.model.baseUrl setting'],
  [/Choose one with --model NAME \(or model\.name in the config\)\./g, 'Choose one with "Zuno: Select Model".'],
  [
    /Check the model name \(--model or model\.name\) and the base URL \(--base-url or model\.base_url\)\./g,
    'Check the model and its server with "Zuno: Select Model" (the zuno.model.name and zuno.model.baseUrl settings).',
  ],
  [/model\.images \(the setting zuno\.model\.images in the editor\)/g, 'the zuno.model.images setting'],
  [/model\.max_steps/g, 'the zuno.model.maxSteps setting'],
];

export function editorWording(text: string): string {
  let result = text;
  for (const [pattern, replacement] of REWRITES) result = result.replace(pattern, replacement);
  return result;
}

/** The buttons an error card offers: what fixes it first, then Retry when trying again can help. */
export function errorActions(text: string): ErrorAction[] {
  if (/unauthori[sz]ed|API key|HTTP 40[13]/i.test(text)) return ['set-api-key', 'retry'];
  if (/No model is set|Select Model|model ".*" (?:is not available|was not found)/i.test(text)) return ['configure-model', 'retry'];
  if (/Cannot connect|Cannot resolve|connection .*failed|base URL/i.test(text)) return ['configure-model', 'retry'];
  if (/configuration|config\.json|setting/i.test(text)) return ['open-settings', 'retry'];
  return ['retry'];
}

/** A button's label. */
export const ERROR_ACTION_LABELS: Readonly<Record<ErrorAction, string>> = {
  retry: 'Retry',
  'configure-model': 'Configure model',
  'set-api-key': 'Set API Key',
  'open-settings': 'Open settings',
};
