/**
 * Images pasted into the composer (issue 14): shown as thumbnails with a remove button, sent with
 * the next message, and kept until the host shows that message as sent or queued, so an image a
 * model cannot take (the host refuses it, naming zuno.model.images) is not lost.
 */
import type { ImagePart } from '../src/core/transcript';
import { actionButton, element } from './dom';
import { attachRefusal, imageFromDataUrl, sendRefusal } from './image-format';

interface Attachment extends ImagePart {
  readonly id: string;
}

export class ImageAttachments {
  readonly root = element('div', { className: 'attachments', attributes: { 'data-testid': 'attachments' } });
  private items: Attachment[] = [];
  private note: string | undefined;
  private counter = 0;
  /** Set when a message left with the images; the host's echo of it clears them. */
  private sent = false;

  constructor() {
    this.render();
  }

  /** Takes the images of a paste; text in the same paste goes into the composer as usual. */
  paste(event: ClipboardEvent): void {
    const files = [...(event.clipboardData?.items ?? [])]
      .filter((item) => item.kind === 'file' && item.type.startsWith('image/'))
      .flatMap((item) => {
        const file = item.getAsFile();
        return file === null ? [] : [file];
      });
    if (files.length === 0) return;
    event.preventDefault();
    for (const file of files) {
      const reader = new FileReader();
      reader.onload = () => this.add(typeof reader.result === 'string' ? reader.result : '');
      reader.readAsDataURL(file);
    }
  }

  add(dataUrl: string): void {
    const refusal = attachRefusal(this.items.length);
    const image = refusal === undefined ? imageFromDataUrl(dataUrl) : { refusal };
    if ('refusal' in image) this.note = image.refusal;
    else {
      this.note = undefined;
      this.items.push({ ...image, id: `image-${++this.counter}` });
    }
    this.render();
  }

  /**
   * Images handed back with their text (a queued message removed, a cancelled turn's queue): into
   * the composer again, all of them, even past the limit of one message, which sending then asks to fix.
   */
  restore(images: readonly ImagePart[]): void {
    for (const { mediaType, data } of images) this.items.push({ mediaType, data, id: `image-${++this.counter}` });
    this.note = sendRefusal(this.items.length);
    this.render();
  }

  remove(id: string): void {
    this.items = this.items.filter((item) => item.id !== id);
    this.note = undefined;
    this.render();
  }

  /** The images to send with a message now; undefined (and the note says why) when there are too many to send. */
  takeForSend(): ImagePart[] | undefined {
    this.note = sendRefusal(this.items.length);
    if (this.note !== undefined) {
      this.render();
      return undefined;
    }
    this.sent = this.items.length > 0;
    return this.items.map(({ mediaType, data }) => ({ mediaType, data }));
  }

  /** The host showed the message as sent, or queued it: its images are gone from the composer. */
  messageShown(): void {
    if (!this.sent) return;
    this.sent = false;
    this.items = [];
    this.render();
  }

  private render(): void {
    this.root.hidden = this.items.length === 0 && this.note === undefined;
    this.root.replaceChildren(
      ...this.items.map((item, index) =>
        element(
          'figure',
          { className: 'attachment', attributes: { 'data-testid': 'attachment' } },
          element('img', {
            className: 'attachment-thumb',
            attributes: { src: `data:${item.mediaType};base64,${item.data}`, alt: `Pasted image ${index + 1}` },
          }),
          actionButton(
            '×',
            'remove-attachment',
            { 'data-attachment-id': item.id, 'data-testid': 'remove-attachment', 'aria-label': `Remove image ${index + 1}` },
            'attachment-remove',
          ),
        ),
      ),
      ...(this.note !== undefined
        ? [
            element('div', {
              className: 'attachment-note',
              text: this.note,
              attributes: { 'data-testid': 'attachment-note', role: 'alert' },
            }),
          ]
        : []),
    );
  }
}
