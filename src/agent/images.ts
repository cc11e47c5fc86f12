/**
 * Pasted images (issue 14): whether this model may be sent them. Checked before a run starts,
 * so a model that cannot take images never gets a request it would refuse or, worse, silently
 * answer without seeing the image.
 */
import type { ZunoConfig } from '../core/config';

/** Why the images cannot be sent, naming what to change; undefined when they can. */
export function imageRefusal(config: ZunoConfig, images: number): string | undefined {
  if (images === 0) return undefined;
  const what = images === 1 ? 'an image' : `${images} images`;
  if (config.model.provider === 'vscode-lm')
    return `Zuno did not send this message: it has ${what}, and VS Code language models are sent text only. Remove the images, or choose an OpenAI-compatible or Anthropic model that takes images.`;
  if (!config.model.images) {
    const model = config.model.name ?? 'the model';
    return `Zuno did not send this message: it has ${what}, and ${model} is not set up to take images. If it accepts them (e.g. gpt-4o or Claude), turn on model.images (the setting zuno.model.images in the editor); otherwise remove the images.`;
  }
  return undefined;
}
