/**
 * Markdown for model text, through markdown-it (a real, CommonMark-conformant parser) rather than
 * hand-rolled regexes. Model output is untrusted: raw HTML is escaped (`html: false`), only
 * http, https and mailto links become links, and images are not rendered (the CSP would block a
 * remote image anyway; dropping the rule keeps the text readable instead of a broken icon).
 */
import MarkdownIt from 'markdown-it';
import { installCodeBlocks } from './code-blocks';

const SAFE_LINK = /^(?:https?:|mailto:)/i;

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });
markdown.disable('image');
markdown.validateLink = (url: string): boolean => SAFE_LINK.test(url.trim());
installCodeBlocks(markdown);

/** HTML for a message's text; safe to assign to `innerHTML` because every input tag is escaped. */
export function renderMarkdown(text: string): string {
  return markdown.render(text);
}
