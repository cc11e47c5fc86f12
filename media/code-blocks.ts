/**
 * Fenced code in model text (issue 14 item 6): highlighted by highlight.js (bundled into the
 * webview, no eval and no network, so the CSP stands), with its language named and a Copy button.
 * highlight.js escapes the code it wraps in spans, and everything else here goes through
 * markdown-it's `escapeHtml`, so model text still cannot become markup.
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdownLanguage from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import type MarkdownIt from 'markdown-it';

// The languages a coding agent's answers mostly contain; each costs bundle size, so not all 190.
const LANGUAGES = {
  bash,
  c,
  cpp,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  markdown: markdownLanguage,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, definition] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, definition);

/** A fence's info word that may be shown as a label and used as a class: short, no markup characters. */
const LANGUAGE_NAME = /^[\w+#.-]{1,32}$/;

/** The fence's language as written (`ts`), if it is a plausible name. */
export function fenceLanguage(info: string): string | undefined {
  const word = info.trim().split(/\s+/)[0] ?? '';
  return LANGUAGE_NAME.test(word) ? word : undefined;
}

/** Highlighted, escaped HTML for the code, or undefined when the language is unknown (then plain escaped text). */
export function highlightCode(code: string, language: string | undefined): string | undefined {
  if (language === undefined || hljs.getLanguage(language) === undefined) return undefined;
  try {
    return hljs.highlight(code, { language, ignoreIllegals: true }).value;
  } catch {
    return undefined;
  }
}

/** Replaces markdown-it's fence rule with a block that has a header (language, Copy) and highlighted code. */
export function installCodeBlocks(markdown: MarkdownIt): void {
  const escape = markdown.utils.escapeHtml;
  markdown.renderer.rules.fence = (tokens, index) => {
    const token = tokens[index];
    if (token === undefined) return '';
    const language = fenceLanguage(token.info);
    const body = highlightCode(token.content, language) ?? escape(token.content);
    const label = language === undefined ? 'text' : language;
    return (
      `<div class="code-block" data-testid="code-block">` +
      `<div class="code-header"><span class="code-language" data-testid="code-language">${escape(label)}</span>` +
      `<button type="button" class="code-copy link-button" data-action="copy-code" data-testid="copy-code" title="Copy the code">Copy</button></div>` +
      `<pre><code class="hljs${language === undefined ? '' : ` language-${escape(language)}`}">${body}</code></pre></div>\n`
    );
  };
}
