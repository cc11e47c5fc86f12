/**
 * Just enough of the POSIX shell grammar to judge a command line against permission rules.
 * A prefix allowlist is not enough: `git show > ~/.ssh/x` starts with `git show` and still
 * writes a file (lessons-from-peers, "Approvals"). So a line is split into its simple commands,
 * and anything whose effect a pattern cannot see (a redirection to a file, a substitution, a
 * subshell, a here-document, an unclosed quote) is reported as a hazard. An allow rule never
 * approves a line with a hazard: when in doubt, ask.
 *
 * This is not a shell. It errs towards reporting hazards, never towards hiding them.
 */

export interface CommandLineAnalysis {
  /** The simple commands of the top level, in order, with whitespace collapsed and harmless redirections (to /dev/null, `2>&1`) removed. */
  readonly commands: readonly string[];
  /** Simple commands found inside substitutions and subshells, at any depth. */
  readonly nested: readonly string[];
  /** Why a pattern cannot vouch for this line; empty when it can. */
  readonly hazards: readonly string[];
}

const WORD_BREAK = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')']);
const isBlank = (char: string | undefined): boolean => char === ' ' || char === '\t';

/** Index of the quote closing a double-quoted string opened at `start`, or -1. */
function closingDoubleQuote(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index++) {
    if (text[index] === '\\') index++;
    else if (text[index] === '"') return index;
  }
  return -1;
}

/** Index of the `)` closing the `(` at `open`, skipping quoted text, or -1. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    const char = text[index];
    if (char === '\\') index++;
    else if (char === "'") {
      const end = text.indexOf("'", index + 1);
      if (end === -1) return -1;
      index = end;
    } else if (char === '"') {
      const end = closingDoubleQuote(text, index);
      if (end === -1) return -1;
      index = end;
    } else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return index;
  }
  return -1;
}

/** Index of the backtick closing the one at `start`, or -1. */
function closingBacktick(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index++) {
    if (text[index] === '\\') index++;
    else if (text[index] === '`') return index;
  }
  return -1;
}

/** Reads the word after a redirection operator: returns its text and where it ends. */
function redirectionTarget(text: string, from: number): { word: string; end: number } {
  let index = from;
  while (isBlank(text[index])) index++;
  let word = '';
  while (index < text.length && !WORD_BREAK.has(text[index] ?? '')) {
    const char = text[index] ?? '';
    if (char === "'" || char === '"') {
      const end = char === "'" ? text.indexOf("'", index + 1) : closingDoubleQuote(text, index);
      const stop = end === -1 ? text.length : end + 1;
      word += text.slice(index, stop);
      index = stop;
    } else {
      word += char;
      index++;
    }
  }
  return { word, end: index };
}

const REDIRECTION_OPERATORS = ['&>>', '<<<', '>>', '>|', '>&', '<<', '<&', '<>', '&>', '>', '<'];

class Scanner {
  readonly commands: string[] = [];
  readonly nested: string[] = [];
  readonly hazards: string[] = [];
  private current = '';

  constructor(private readonly text: string) {}

  scan(): void {
    const text = this.text;
    let index = 0;
    while (index < text.length) {
      index = this.step(text, index);
    }
    this.endCommand();
  }

  private hazard(reason: string): void {
    if (!this.hazards.includes(reason)) this.hazards.push(reason);
  }

  private endCommand(): void {
    const command = this.current.trim();
    if (command.length > 0) this.commands.push(command);
    this.current = '';
  }

  private atWordStart(): boolean {
    return this.current.length === 0 || this.current.endsWith(' ');
  }

  /** Scans the inside of a substitution or subshell, whose commands a deny rule must still see. */
  private scanInner(inner: string): void {
    const scanner = new Scanner(inner);
    scanner.scan();
    this.nested.push(...scanner.commands, ...scanner.nested);
    for (const reason of scanner.hazards) this.hazard(reason);
  }

  /** Consumes a construct from `start` (`$(`, `<(`, `(`) to its closing paren, scanning what is inside. */
  private enclosed(start: number, open: number, reason: string): number {
    const text = this.text;
    this.hazard(reason);
    const close = closingParen(text, open);
    if (close === -1) {
      this.hazard('an unbalanced parenthesis');
      this.scanInner(text.slice(open + 1));
      this.current += text.slice(start);
      return text.length;
    }
    this.scanInner(text.slice(open + 1, close));
    this.current += text.slice(start, close + 1);
    return close + 1;
  }

  private step(text: string, index: number): number {
    const char = text[index] ?? '';
    const next = text[index + 1];

    if (char === '\\') {
      if (next === '\n') return index + 2; // a line continuation
      this.current += text.slice(index, index + 2);
      return index + 2;
    }
    if (char === "'") {
      const end = text.indexOf("'", index + 1);
      if (end === -1) {
        this.hazard('an unclosed quote');
        this.current += text.slice(index);
        return text.length;
      }
      this.current += text.slice(index, end + 1);
      return end + 1;
    }
    if (char === '"') return this.doubleQuoted(text, index);
    if (char === '$' && next === '(') return this.enclosed(index, index + 1, 'a command substitution $(...)');
    if ((char === '<' || char === '>') && next === '(') return this.enclosed(index, index + 1, `a process substitution ${char}(...)`);
    if (char === '`') return this.backticks(text, index);
    if (char === '(') return this.enclosed(index, index, 'a subshell (...)');
    if (char === ')') {
      this.hazard('an unbalanced parenthesis');
      this.current += char;
      return index + 1;
    }
    if (char === '#' && this.atWordStart()) {
      const newline = text.indexOf('\n', index);
      return newline === -1 ? text.length : newline;
    }
    if ((char === '{' || char === '}') && this.atWordStart() && (next === undefined || isBlank(next) || next === '\n' || next === ';')) {
      this.hazard('a command group { ...; }');
    }
    if (char === '>' || char === '<' || (char === '&' && next === '>')) return this.redirection(text, index);
    if (char === ';' || char === '\n' || char === '|' || char === '&') {
      this.endCommand();
      // `&&`, `||`, `|&` and `;;` are single operators.
      const pair = char + (next ?? '');
      return pair === '&&' || pair === '||' || pair === '|&' || pair === ';;' ? index + 2 : index + 1;
    }
    if (isBlank(char) || char === '\r') {
      if (!this.atWordStart()) this.current += ' ';
      return index + 1;
    }
    this.current += char;
    return index + 1;
  }

  private doubleQuoted(text: string, start: number): number {
    const end = closingDoubleQuote(text, start);
    const stop = end === -1 ? text.length : end;
    if (end === -1) this.hazard('an unclosed quote');
    // Substitutions still run inside double quotes.
    for (let index = start + 1; index < stop; index++) {
      const char = text[index];
      if (char === '\\') index++;
      else if (char === '$' && text[index + 1] === '(') {
        this.hazard('a command substitution $(...)');
        const close = closingParen(text, index + 1);
        this.scanInner(text.slice(index + 2, close === -1 || close > stop ? stop : close));
        if (close !== -1 && close < stop) index = close;
      } else if (char === '`') {
        this.hazard('a command substitution `...`');
        const close = closingBacktick(text, index);
        this.scanInner(text.slice(index + 1, close === -1 || close > stop ? stop : close));
        if (close !== -1 && close < stop) index = close;
      }
    }
    this.current += text.slice(start, end === -1 ? text.length : end + 1);
    return end === -1 ? text.length : end + 1;
  }

  private backticks(text: string, start: number): number {
    this.hazard('a command substitution `...`');
    const end = closingBacktick(text, start);
    if (end === -1) {
      this.hazard('an unclosed quote');
      this.scanInner(text.slice(start + 1));
      this.current += text.slice(start);
      return text.length;
    }
    this.scanInner(text.slice(start + 1, end));
    this.current += text.slice(start, end + 1);
    return end + 1;
  }

  private redirection(text: string, start: number): number {
    const operator = REDIRECTION_OPERATORS.find((candidate) => text.startsWith(candidate, start)) ?? text[start] ?? '';
    const { word, end } = redirectionTarget(text, start + operator.length);
    const duplicatesDescriptor = (operator === '>&' || operator === '<&') && /^(\d+-?|-)$/.test(word);
    const harmless = duplicatesDescriptor || (word === '/dev/null' && !operator.startsWith('<<'));
    if (operator.startsWith('<<')) this.hazard('a here-document');
    else if (!harmless) this.hazard(`a redirection (${operator} ${word || '?'})`);
    if (harmless) {
      // The descriptor number before the operator (`2>/dev/null`) goes with it.
      this.current = this.current.replace(/(^|\s)\d+$/, '$1');
    } else {
      this.current += `${operator}${word}`;
    }
    return end;
  }
}

/** Splits a command line into simple commands and reports what a pattern cannot vouch for. */
export function analyzeCommandLine(line: string): CommandLineAnalysis {
  const scanner = new Scanner(line);
  scanner.scan();
  return { commands: scanner.commands, nested: scanner.nested, hazards: scanner.hazards };
}
