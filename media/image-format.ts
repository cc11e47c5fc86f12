/** Which pasted images the composer takes (issue 14), without the DOM so it can be unit tested. */
import type { ImagePart } from '../src/core/transcript';

/** As many as the host accepts in one message (src/webview/protocol.ts). */
export const MAX_IMAGES = 4;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const ACCEPTED: readonly ImagePart['mediaType'][] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** An image from a FileReader data URL, or why the composer does not take it. */
export function imageFromDataUrl(url: string): ImagePart | { readonly refusal: string } {
  const match = /^data:([\w/+.-]+);base64,([A-Za-z0-9+/]+={0,2})$/.exec(url);
  if (match === null) return { refusal: 'That image could not be read: copy it again, or save it and paste the file.' };
  const [, type = '', data = ''] = match;
  const mediaType = ACCEPTED.find((accepted) => accepted === type);
  if (mediaType === undefined) return { refusal: `Zuno sends PNG, JPEG, GIF and WebP images; this one is ${type}.` };
  const bytes = Math.floor((data.length * 3) / 4);
  if (bytes > MAX_IMAGE_BYTES)
    return {
      refusal: `That image is ${(bytes / (1024 * 1024)).toFixed(1)} MB; an image may be at most ${MAX_IMAGE_BYTES / (1024 * 1024)} MB.`,
    };
  return { mediaType, data };
}

/** Why one more image cannot be added, or undefined when it can. */
export function attachRefusal(count: number): string | undefined {
  return count >= MAX_IMAGES ? `At most ${MAX_IMAGES} images go with one message: remove one first.` : undefined;
}

/** Why the attached images cannot be sent as they are (more than one message takes, after some came back from the queue). */
export function sendRefusal(count: number): string | undefined {
  return count > MAX_IMAGES
    ? `${count} images are attached and at most ${MAX_IMAGES} go with one message: remove ${count - MAX_IMAGES} before sending.`
    : undefined;
}
