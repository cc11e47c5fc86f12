/**
 * How a permission rule reads a command line (SPEC E1, §9; issue 8 items 1 and 7). The line is
 * parsed by tree-sitter's bash grammar (loaded by the host, see `hosts/node/shell-parser.ts`) and
 * judged from the tree by an allow-list of node kinds, the way Codex's `shell-command/src/bash.rs`
 * does, never by a list of hazards:
 *
 * - `plain`: the simple commands an allow rule must cover, each as its literal words joined by one
 *   space. Present only for a line made of plain commands with literal words, joined by `&&`,
 *   `||`, `;`, `|`, `&` or newlines, with at most harmless redirections. Anything else is not
 *   plain, and `notPlain` says why: no allow pattern can vouch for it.
 * - `screened`: every command found anywhere in the tree (compound commands, functions,
 *   substitutions, redirection targets, here-documents, `sh -c` and `eval` strings), each under
 *   several forms (as written, path stripped, quotes resolved, assignments dropped, wrappers such
 *   as `env`, `sudo`, `xargs` or `find -exec` unwrapped), for deny and ask rules to hit.
 * - `uncertain`: why the parse and the shell might read the line differently, or why a command
 *   may have been missed (a computed name, an unparseable part, `\r`, a line too long or too
 *   deep). A deny rule cannot vouch that such a line is free of what it forbids.
 *
 * The tree is copied out of WASM memory by one iterative cursor walk that stops descending past
 * MAX_TREE_DEPTH, so everything after it works on a tree of bounded depth, and the total work is
 * linear in the line (times the bounded number of nested `sh -c` parses).
 */
import type { Tree } from '@vscode/tree-sitter-wasm';

/**
 * The longest line analysed; longer lines are uncertain. Measured (bench/shell-analysis.bench.ts,
 * best of many runs on a loaded 2-core machine): a realistic 4 KiB line takes about 2.3 ms and
 * the issue's pathological 4 KB line about 4 ms, while at 8 KiB the pathological lines reach
 * 20 ms and more. So 4 KiB keeps one analysis within a few milliseconds.
 */
export const MAX_LINE_LENGTH = 4 * 1024;
/** Deeper trees than this are not walked: no real command nests this far. */
export const MAX_TREE_DEPTH = 128;
/** How many `sh -c` / `eval` strings inside each other are parsed again. */
export const MAX_SCRIPT_NESTING = 4;
/** How many wrappers (`env sudo nice …`) are peeled off one command. */
const MAX_UNWRAP = 16;

export interface ShellAnalysis {
  /** The simple commands an allow rule must each cover; only for a plain line. */
  readonly plain?: readonly string[];
  /**
   * The same commands as written (quotes kept, harmless redirections included), index by index.
   * An allow rule may match either form: "Allow like this" writes the line as the user saw it.
   */
  readonly plainWritten?: readonly string[];
  /** Why no allow pattern can vouch for the line; set exactly when `plain` is not. */
  readonly notPlain?: string;
  /** Every form of every command anywhere in the line, for deny and ask rules. */
  readonly screened: readonly string[];
  /** Why a deny or ask rule cannot be sure it saw every command. */
  readonly uncertain?: string;
  /** Syntax nodes visited, nested parses included: a measure of work, for tests. */
  readonly work: number;
}

export interface ShellAnalyzer {
  analyze(line: string): ShellAnalysis;
}

/** Parses a line with the bash grammar; the caller deletes the tree. */
export type ShellParse = (text: string) => Tree | null;

export interface ShellAnalyzerOptions {
  /** `win32`: the shell is cmd.exe, whose metacharacters no pattern may vouch for. */
  readonly platform: 'posix' | 'win32';
  /** Overrides MAX_LINE_LENGTH; only the bench uses it, to show what longer lines would cost. */
  readonly maxLineLength?: number;
}

/** A syntax node copied out of the WASM tree. */
interface SyntaxNode {
  readonly type: string;
  readonly named: boolean;
  readonly field: string | null;
  readonly start: number;
  readonly end: number;
  readonly missing: boolean;
  readonly children: SyntaxNode[];
}

/** Characters that end an unquoted word for sh; the grammar sometimes keeps them in one (`git\n\\touch`). */
const BLANKS = ' \t\n';
const MISREAD_WORD = 'the parser kept a blank or newline inside an unquoted word, where the shell ends the word';
const WINDOWS_METACHARACTERS = /[&|<>^%!()"\n]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Redirections that neither read nor write a file anyone cares about. */
const HARMLESS_REDIRECTIONS = new Set([
  '2>&1',
  '1>&2',
  '>&2',
  '>/dev/null',
  '1>/dev/null',
  '2>/dev/null',
  '>>/dev/null',
  '2>>/dev/null',
  '</dev/null',
  '0</dev/null',
]);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash']);
/** Node kinds a plain line may consist of, with the operators joining them. */
const PLAIN_JOINERS = new Set([';', '&', '&&', '||', '|', '\n']);

/** Names for node kinds in reasons the user reads. */
const DESCRIPTIONS: Readonly<Record<string, string>> = {
  command_substitution: 'a command substitution',
  process_substitution: 'a process substitution',
  subshell: 'a subshell',
  compound_statement: 'a command group',
  comment: 'a comment',
  heredoc_redirect: 'a here-document',
  herestring_redirect: 'a here-string',
  file_redirect: 'a redirection to a file',
  expansion: 'a parameter expansion',
  simple_expansion: 'a variable',
  arithmetic_expansion: 'an arithmetic expansion',
  ansi_c_string: "an ANSI-C string ($'…'), which bash and dash read differently",
  translated_string: 'a translated string ($"…")',
  function_definition: 'a function definition',
  variable_assignment: 'a variable assignment',
  negated_command: 'a negated command',
  if_statement: 'an if statement',
  while_statement: 'a loop',
  for_statement: 'a loop',
  c_style_for_statement: 'a loop',
  case_statement: 'a case statement',
  test_command: 'a test expression',
  declaration_command: 'a declaration',
  ERROR: 'a part the parser could not read',
};
const describe = (type: string): string => DESCRIPTIONS[type] ?? `"${type}"`;

interface Word {
  /** Quotes and escapes resolved where the word is literal; the text as written otherwise. */
  readonly value: string;
  /** Why the word is not literal; absent when it is. */
  readonly computed?: string;
}

/** Copies the tree into plain objects by one iterative cursor walk, not below `MAX_TREE_DEPTH`. */
function copyTree(tree: Tree, counter: { work: number; tooDeep: boolean }): SyntaxNode {
  const cursor = tree.walk();
  try {
    const make = (): SyntaxNode => {
      counter.work++;
      return {
        type: cursor.nodeType,
        named: cursor.nodeIsNamed,
        field: cursor.currentFieldName,
        start: cursor.startIndex,
        end: cursor.endIndex,
        missing: cursor.nodeIsMissing,
        children: [],
      };
    };
    const root = make();
    const stack: SyntaxNode[] = [root];
    for (;;) {
      const parent = stack[stack.length - 1];
      if (parent === undefined) break;
      if (stack.length <= MAX_TREE_DEPTH && cursor.gotoFirstChild()) {
        const child = make();
        parent.children.push(child);
        stack.push(child);
        continue;
      }
      if (stack.length > MAX_TREE_DEPTH && cursor.gotoFirstChild()) {
        counter.tooDeep = true;
        cursor.gotoParent();
      }
      // Climb until a sibling exists; the stack mirrors the cursor's path.
      for (;;) {
        stack.pop();
        const up = stack[stack.length - 1];
        if (up === undefined) return root;
        if (cursor.gotoNextSibling()) {
          const sibling = make();
          up.children.push(sibling);
          stack.push(sibling);
          break;
        }
        cursor.gotoParent();
      }
    }
    return root;
  } finally {
    cursor.delete();
  }
}

/** Resolves the backslashes of unquoted text, or says why it is not literal. */
function resolveUnquoted(text: string): { value: string } | { why: string; at: number } {
  let out = '';
  for (let index = 0; index < text.length; index++) {
    const char = text[index] ?? '';
    if (char === '\\') {
      const next = text[index + 1];
      index++;
      if (next !== undefined && next !== '\n') out += next;
    } else if ('*?[{}'.includes(char)) return { why: 'an unquoted glob or brace expands it', at: index };
    else if (BLANKS.includes(char)) return { why: MISREAD_WORD, at: index };
    else out += char;
  }
  return { value: out };
}

/** Resolves the backslashes of double-quoted text: only `$`, backquote, `"`, `\` and newline are escaped there. */
function resolveDoubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_match, escaped: string) => (escaped === '\n' ? '' : escaped));
}

const ANSI_C_ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** Resolves `$'…'` as bash does, for screening only; undefined for an escape it does not know. */
function resolveAnsiC(inner: string): string | undefined {
  let unknown = false;
  const out = inner.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/gs, (_match, escape: string) => {
    if (escape.startsWith('x') && escape.length > 1) return String.fromCharCode(parseInt(escape.slice(1), 16));
    if (/^[0-7]/.test(escape)) return String.fromCharCode(parseInt(escape, 8));
    const known = ANSI_C_ESCAPES[escape];
    if (known === undefined) unknown = true;
    return known ?? escape;
  });
  return unknown ? undefined : out;
}

const basename = (name: string): string => name.slice(name.lastIndexOf('/') + 1);

/** One analysis, with its nested parses of `sh -c` and `eval` strings. */
class Analysis {
  readonly screened = new Set<string>();
  uncertain: string | undefined;
  readonly counter = { work: 0, tooDeep: false };

  constructor(
    private readonly parse: ShellParse,
    private readonly options: ShellAnalyzerOptions,
  ) {}

  doubt(reason: string): void {
    this.uncertain ??= reason;
  }

  /** Parses `text` and returns its tree, or undefined (and a doubt) when it cannot. */
  tree(text: string): SyntaxNode | undefined {
    let tree: Tree | null;
    try {
      tree = this.parse(text);
    } catch (error) {
      this.doubt(`the line could not be parsed (${error instanceof Error ? error.message : String(error)})`);
      return undefined;
    }
    if (tree === null) {
      this.doubt('the line could not be parsed');
      return undefined;
    }
    try {
      const root = copyTree(tree, this.counter);
      if (this.counter.tooDeep) this.doubt(`the line nests deeper than ${MAX_TREE_DEPTH} syntax levels`);
      return root;
    } finally {
      tree.delete();
    }
  }

  /** The whole analysis of a top-level line. */
  run(line: string): ShellAnalysis {
    const limit = this.options.maxLineLength ?? MAX_LINE_LENGTH;
    if (line.length > limit) {
      const reason = `the line is ${line.length} characters long, above the ${limit} analysed (split it into shorter commands, or write a script with the write tool and run that)`;
      return { notPlain: reason, screened: [], uncertain: reason, work: 0 };
    }
    if (line.includes('\r')) this.doubt('the line contains a carriage return, which the parser and the shell read differently');
    if (line.includes('\0')) this.doubt('the line contains a NUL character');
    if (LONE_SURROGATE.test(line)) this.doubt('the line contains invalid UTF-16 (a lone surrogate)');
    if (this.options.platform === 'win32' && WINDOWS_METACHARACTERS.test(line)) {
      this.doubt('on Windows the line runs in cmd.exe, and it contains cmd metacharacters (& | < > ^ % ! ( ) " or a newline)');
    }
    const root = this.tree(line);
    let plain: { commands?: string[]; written?: string[]; reason?: string } = { reason: this.uncertain ?? 'the line could not be parsed' };
    if (root) {
      this.screen(root, line, 0);
      plain = this.uncertain === undefined ? plainCommands(root, line) : { reason: this.uncertain };
    }
    const screened = [...this.screened];
    const uncertain = this.uncertain === undefined ? {} : { uncertain: this.uncertain };
    if (plain.commands && plain.commands.length > 0)
      return { plain: plain.commands, plainWritten: plain.written ?? [], screened, ...uncertain, work: this.counter.work };
    return { notPlain: plain.reason ?? 'the line has no command', screened, ...uncertain, work: this.counter.work };
  }

  /** Collects every command in the tree, with an explicit stack (the tree is depth-bounded anyway). */
  screen(root: SyntaxNode, text: string, nesting: number): void {
    // The rest of the text after a misread word is parsed once: that parse finds the later ones.
    let misreadScreened = false;
    const stack: SyntaxNode[] = [root];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      if (node.type === 'ERROR' || node.missing) this.doubt(`the parser could not read part of the line ("${excerpt(text, node)}")`);
      if (node.type === 'command') this.command(node, text, nesting);
      // `export`, `declare`, `local`, `unset`: not commands to the grammar, but builtins a rule may name.
      if (node.type === 'declaration_command' || node.type === 'unset_command')
        this.screened.add(collapse(text.slice(node.start, node.end)));
      if (node.type === 'comment') this.comment(node, text, nesting);
      if (node.type === 'word' && !misreadScreened) misreadScreened = this.word(node, text, nesting);
      if (node.type === 'ansi_c_string') this.doubt("the line has an ANSI-C string ($'…'), which bash and dash read differently");
      if (node.type === 'file_redirect') {
        const destinations = node.children.filter((child) => child.field === 'destination');
        if (destinations.length > 1) {
          // dash reads `&>x touch y` as `&` then `>x touch y`: the extra words may be a command.
          this.doubt(`the redirection "${excerpt(text, node)}" has several target words, which shells read differently`);
          this.expand(
            destinations.slice(1).map((word) => wordOf(word, text)),
            nesting,
            0,
          );
        }
      }
      for (const child of node.children) stack.push(child);
    }
  }

  /** A word with an unescaped blank inside: the shell splits it there, so the rest of the text is screened as commands. True when it was. */
  word(node: SyntaxNode, text: string, nesting: number): boolean {
    const resolved = resolveUnquoted(text.slice(node.start, node.end));
    if (!('why' in resolved) || resolved.why !== MISREAD_WORD) return false;
    this.doubt(`${MISREAD_WORD} ("${excerpt(text, node)}")`);
    this.nested(text.slice(node.start + resolved.at + 1), nesting);
    return true;
  }

  /** A comment where sh sees none (`status\ #; touch X`) hides a command from the parser. */
  comment(node: SyntaxNode, text: string, nesting: number): void {
    const before = text[node.start - 1];
    if (before === undefined || before === '\n' || ((before === ' ' || before === '\t') && !escapedAt(text, node.start - 1))) return;
    this.doubt(`"${excerpt(text, node)}" is a comment for the parser but may not be one for the shell`);
    this.nested(text.slice(node.start + 1, node.end), nesting);
  }

  command(node: SyntaxNode, text: string, nesting: number): void {
    const assignments: string[] = [];
    const words: Word[] = [];
    for (const child of node.children) {
      if (child.type === 'variable_assignment') assignments.push(collapse(text.slice(child.start, child.end)));
      else if (child.field === 'name' || child.field === 'argument')
        words.push(wordOf(child.type === 'command_name' ? (child.children[0] ?? child) : child, text));
    }
    this.screened.add(collapse(text.slice(node.start, node.end)));
    if (words.length === 0) return;
    this.screened.add([...assignments, ...words.map((word) => word.value)].join(' '));
    this.expand(words, nesting, 0);
  }

  /** Adds the forms of one command and of whatever it runs through a wrapper, a shell or eval. */
  expand(words: readonly Word[], nesting: number, unwrapped: number): void {
    const [first, ...rest] = words;
    if (first === undefined) return;
    if (unwrapped > MAX_UNWRAP) {
      this.doubt(`a command is wrapped more than ${MAX_UNWRAP} times`);
      return;
    }
    if (first.computed !== undefined) {
      this.doubt(`the command name "${shorten(first.value)}" is computed (${first.computed}), so no rule can tell what runs`);
      return;
    }
    const name = basename(first.value);
    const values = rest.map((word) => word.value);
    this.screened.add([first.value, ...values].join(' '));
    this.screened.add([name, ...values].join(' '));
    // So that `rm *` also hits a bare `rm`, as in `xargs rm`.
    this.screened.add(`${name} `);
    this.screened.add(name);
    const inner = unwrap(name, rest);
    if (inner === undefined) return;
    if ('scripts' in inner) {
      for (const script of inner.scripts) {
        if (script.computed !== undefined) this.doubt(`the script given to ${name} is computed (${shorten(script.computed)})`);
        else this.nested(script.value, nesting);
      }
      return;
    }
    for (const command of inner.commands) this.expand(command, nesting, unwrapped + 1);
  }

  /** Parses a script given to `sh -c` or `eval` (or hidden in a comment) and screens it too. */
  nested(script: string, nesting: number): void {
    if (nesting + 1 > MAX_SCRIPT_NESTING) {
      this.doubt(`scripts are nested more than ${MAX_SCRIPT_NESTING} levels deep (sh -c, eval)`);
      return;
    }
    const root = this.tree(script);
    if (root) this.screen(root, script, nesting + 1);
  }
}

/** What a wrapper runs: other commands, or scripts to parse. */
type Unwrapped = { commands: Word[][] } | { scripts: Word[] };

/** Skips leading options; `withValue` lists those that take the next word as their value. */
function skipOptions(words: readonly Word[], withValue: ReadonlySet<string>, stopAtFirst = (_word: string) => false): Word[] {
  let index = 0;
  while (index < words.length) {
    const value = words[index]?.value ?? '';
    if (value === '--') return words.slice(index + 1);
    if (!value.startsWith('-') || value === '-' || stopAtFirst(value)) break;
    index += withValue.has(value) ? 2 : 1;
  }
  return words.slice(index);
}

const isAssignment = (value: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*=/.test(value);
const dropAssignments = (words: readonly Word[]): Word[] => {
  let index = 0;
  while (index < words.length && isAssignment(words[index]?.value ?? '')) index++;
  return words.slice(index);
};

/** The command a wrapper runs, or undefined when `name` is no wrapper. */
function unwrap(name: string, args: readonly Word[]): Unwrapped | undefined {
  const one = (words: Word[]): Unwrapped => ({ commands: [words] });
  switch (name) {
    case 'env': {
      const split = args.findIndex((word) => word.value === '-S' || word.value === '--split-string');
      const script = split === -1 ? undefined : args[split + 1];
      if (script) return { scripts: [script] };
      return one(dropAssignments(skipOptions(args, new Set(['-u', '--unset', '-C', '--chdir']))));
    }
    case 'command':
    case 'builtin':
    case 'nohup':
    case 'time':
    case 'setsid':
      return one(skipOptions(args, new Set()));
    case 'exec':
      return one(skipOptions(args, new Set(['-a'])));
    case 'nice':
      return one(skipOptions(args, new Set(['-n', '--adjustment'])));
    case 'stdbuf':
      return one(skipOptions(args, new Set(['-i', '-o', '-e', '--input', '--output', '--error'])));
    case 'timeout': {
      const rest = skipOptions(args, new Set(['-s', '--signal', '-k', '--kill-after']));
      return one(rest.slice(1));
    }
    case 'sudo':
    case 'doas':
      return one(
        dropAssignments(
          skipOptions(
            args,
            new Set(['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-U', '-T', '--user', '--group', '--host', '--prompt', '--chdir']),
          ),
        ),
      );
    case 'xargs': {
      const rest = skipOptions(
        args,
        new Set([
          '-a',
          '-d',
          '-E',
          '-e',
          '-I',
          '-L',
          '-l',
          '-n',
          '-P',
          '-s',
          '--arg-file',
          '--delimiter',
          '--max-args',
          '--max-procs',
          '--max-lines',
          '--max-chars',
          '--replace',
        ]),
      );
      return one(rest.length > 0 ? rest : [{ value: 'echo' }]);
    }
    case 'find': {
      const commands: Word[][] = [];
      for (let index = 0; index < args.length; index++) {
        if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[index]?.value ?? '')) continue;
        const command: Word[] = [];
        for (index++; index < args.length && args[index]?.value !== ';' && args[index]?.value !== '+'; index++)
          command.push(args[index] as Word);
        commands.push(command);
      }
      return { commands };
    }
    case 'eval':
      return { scripts: [joinWords(args)] };
    case 'watch':
      // watch runs its arguments through `sh -c`.
      return { scripts: [joinWords(skipOptions(args, new Set(['-n', '--interval', '-d'])))] };
    case 'trap': {
      // The handler runs later, in the same shell.
      const handler = skipOptions(args, new Set())[0];
      return { scripts: handler ? [handler] : [] };
    }
    case 'alias':
      // An alias runs its value wherever its name is used on a later line (dash expands aliases in scripts).
      return {
        scripts: args
          .filter((word) => word.value.includes('='))
          .map((word) => ({ ...word, value: word.value.slice(word.value.indexOf('=') + 1) })),
      };
    case 'su': {
      const flag = args.findIndex((word) => word.value === '-c' || word.value === '--command');
      const script = flag === -1 ? undefined : args[flag + 1];
      return script ? { scripts: [script] } : undefined;
    }
    case 'busybox':
      // `busybox rm x` runs the applet `rm`.
      return one([...args]);
    default: {
      if (!SHELLS.has(name)) return undefined;
      // `bash -c SCRIPT`, `bash -xc SCRIPT`.
      const flag = args.findIndex((word) => /^-[A-Za-z]*c[A-Za-z]*$/.test(word.value));
      const script = flag === -1 ? undefined : args.slice(flag + 1).find((word) => !/^[-+]/.test(word.value));
      return script ? { scripts: [script] } : undefined;
    }
  }
}

function joinWords(words: readonly Word[]): Word {
  const computed = words.find((word) => word.computed !== undefined)?.computed;
  return { value: words.map((word) => word.value).join(' '), ...(computed !== undefined ? { computed } : {}) };
}

const collapse = (text: string): string => text.replace(/\\\n/g, ' ').replace(/\s+/g, ' ').trim();
/** Reasons quote at most this much of the line. */
const shorten = (text: string): string => (text.length > 40 ? `${text.slice(0, 40)}…` : text);
const excerpt = (text: string, node: SyntaxNode): string => shorten(collapse(text.slice(node.start, node.end)));

/** Whether the character at `index` is escaped by an odd run of backslashes. */
function escapedAt(text: string, index: number): boolean {
  let count = 0;
  for (let at = index - 1; at >= 0 && text[at] === '\\'; at--) count++;
  return count % 2 === 1;
}

/** A word's value: literal when every part is a plain word or a quoted string without expansions. */
function wordOf(node: SyntaxNode, text: string): Word {
  const raw = text.slice(node.start, node.end);
  const computed = (why: string): Word => ({ value: collapse(raw), computed: why });
  switch (node.type) {
    case 'word':
    case 'number': {
      const resolved = resolveUnquoted(raw);
      return 'why' in resolved ? computed(resolved.why) : { value: resolved.value };
    }
    case 'raw_string':
      return { value: raw.slice(1, -1) };
    case 'string': {
      const expanding = node.children.find((child) => child.type !== '"' && child.type !== 'string_content');
      return expanding ? computed(`it contains ${describe(expanding.type)}`) : { value: resolveDoubleQuoted(raw.slice(1, -1)) };
    }
    case 'ansi_c_string': {
      const value = resolveAnsiC(raw.slice(2, -1));
      // Literal for screening; `plainCommands` still refuses it, as dash reads it differently.
      return value === undefined ? computed('an escape in it is not understood') : { value };
    }
    case 'concatenation': {
      let value = '';
      for (const part of node.children) {
        const word = wordOf(part, text);
        if (word.computed !== undefined) return computed(word.computed);
        value += word.value;
      }
      return { value };
    }
    default:
      return computed(`it is ${describe(node.type)}`);
  }
}

/** The literal text of one plain simple command, or why it is not plain. */
function plainCommand(node: SyntaxNode, text: string, redirects: readonly SyntaxNode[]): { command?: string; reason?: string } {
  const words: string[] = [];
  for (const child of node.children) {
    if (child.type === 'variable_assignment') {
      const value = child.children.find((part) => part.field === 'value');
      const literal = value ? wordOf(value, text) : { value: '' };
      if (literal.computed !== undefined || value?.type === 'ansi_c_string')
        return { reason: `the assignment "${excerpt(text, child)}" is not literal` };
      words.push(collapse(text.slice(child.start, (value ?? child).start)) + literal.value);
      continue;
    }
    if (child.type === 'file_redirect') {
      const reason = harmlessRedirect(child, text);
      if (reason !== undefined) return { reason };
      continue;
    }
    const part = child.type === 'command_name' && child.children.length === 1 ? child.children[0] : child;
    if (part === undefined || (child.field !== 'name' && child.field !== 'argument')) return { reason: `it has ${describe(child.type)}` };
    if (part.type === 'ansi_c_string') return { reason: `it has ${describe(part.type)}` };
    const word = wordOf(part, text);
    if (word.computed !== undefined) return { reason: `the word "${shorten(word.value)}" is not literal (${word.computed})` };
    // `'git status'` runs a program named "git status": joined with spaces, its resolved name
    // would read as `git` with an argument, so such a command is only matched as written.
    if (child.field === 'name' && (word.value === '' || /\s/.test(word.value)))
      return { command: collapse(text.slice(node.start, node.end)) };
    words.push(word.value);
  }
  for (const redirect of redirects) {
    const reason = harmlessRedirect(redirect, text);
    if (reason !== undefined) return { reason };
  }
  const gap = unreadGap(node, text);
  if (gap !== undefined) return { reason: gap };
  return { command: words.join(' ') };
}

/** Undefined for a harmless redirection (`2>&1`, `>/dev/null`), else why it is not. */
function harmlessRedirect(node: SyntaxNode, text: string): string | undefined {
  const written = text.slice(node.start, node.end).replace(/[ \t]+/g, '');
  const destinations = node.children.filter((child) => child.field === 'destination');
  if (node.type === 'file_redirect' && destinations.length === 1 && HARMLESS_REDIRECTIONS.has(written)) return undefined;
  return `it has ${node.type === 'file_redirect' ? `the redirection "${excerpt(text, node)}"` : describe(node.type)}`;
}

/** Text between a node's children that the parser skipped (`\ ` before a comment): the shell may read it. */
function unreadGap(node: SyntaxNode, text: string): string | undefined {
  let at = node.start;
  for (const child of [...node.children, { start: node.end, end: node.end }]) {
    const gap = text.slice(at, child.start).replace(/\\\n/g, '');
    if (/[^ \t\n]/.test(gap)) return `the parser skipped "${gap.trim()}"`;
    at = Math.max(at, child.end);
  }
  return undefined;
}

/** The plain commands of a line, or why it has none (see ShellAnalysis.plain). */
function plainCommands(root: SyntaxNode, text: string): { commands?: string[]; written?: string[]; reason?: string } {
  const commands: string[] = [];
  const written: string[] = [];
  const stack: SyntaxNode[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    switch (node.type) {
      case 'program':
      case 'list':
      case 'pipeline': {
        const gap = unreadGap(node, text);
        if (gap !== undefined) return { reason: gap };
        for (let index = node.children.length - 1; index >= 0; index--) {
          const child = node.children[index] as SyntaxNode;
          if (child.named) stack.push(child);
          else if (!PLAIN_JOINERS.has(child.type)) return { reason: `it has the operator "${child.type}"` };
        }
        break;
      }
      case 'redirected_statement': {
        const body = node.children.find((child) => child.field === 'body');
        const redirects = node.children.filter((child) => child.field === 'redirect');
        if (body?.type !== 'command' || node.children.length !== redirects.length + 1)
          return { reason: `it has ${describe(body?.type ?? 'redirected_statement')} with a redirection` };
        const result = plainCommand(body, text, redirects);
        if (result.command === undefined) return result;
        commands.push(result.command);
        written.push(text.slice(node.start, node.end).trim());
        break;
      }
      case 'command': {
        const result = plainCommand(node, text, []);
        if (result.command === undefined) return result;
        commands.push(result.command);
        written.push(text.slice(node.start, node.end).trim());
        break;
      }
      default:
        return { reason: `it has ${describe(node.type)}` };
    }
  }
  return commands.length > 0 ? { commands, written } : { reason: 'the line has no command' };
}

/** The analyzer over a parser the host loaded. */
export function createShellAnalyzer(parse: ShellParse, options: ShellAnalyzerOptions): ShellAnalyzer {
  return {
    analyze: (line) => new Analysis(parse, options).run(line),
  };
}
