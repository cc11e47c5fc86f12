/**
 * The extension's contributions as data: the one command table, the view, and the settings.
 * `scripts/contribute-manifest.ts` writes them into package.json, the registration loop in
 * `commands.ts` is typed by the same ids, and a unit test fails if package.json drifts, so a
 * command can never be declared without a handler or registered without a palette entry.
 * No `vscode` import.
 */
import { contributedConfiguration } from './settings';

export const VIEW_CONTAINER_ID = 'zuno';
export const CHAT_VIEW_ID = 'zuno.chat';
/** A `when`-clause context key the extension sets while a turn is running. */
export const RUNNING_CONTEXT_KEY = 'zuno.running';
/** Set while the active editor is the diff of a Zuno proposal that waits for approval (issue 14 item 13). */
export const PROPOSAL_CONTEXT_KEY = 'zuno.proposalActive';

export interface CommandDefinition {
  readonly title: string;
  /** A codicon, for buttons in the view's title bar. */
  readonly icon?: string;
  /** Shown in the Chat view's title bar, at this position, when `when` holds. */
  readonly viewTitle?: { readonly order: number; readonly when?: string };
  /** Shown in the editor's context menu when `when` holds. */
  readonly editorContext?: { readonly when: string };
  /** Shown in the editor's title bar, at this position, when `when` holds; in the palette only then too. */
  readonly editorTitle?: { readonly order: number; readonly when: string };
}

/** Every command, in palette order. Category "Zuno" is added to each. */
export const COMMANDS = {
  'zuno.newChat': { title: 'New Chat', icon: '$(add)', viewTitle: { order: 2 } },
  'zuno.cancel': { title: 'Cancel', icon: '$(debug-stop)', viewTitle: { order: 1, when: RUNNING_CONTEXT_KEY } },
  'zuno.showHistory': { title: 'Show History', icon: '$(history)', viewTitle: { order: 3 } },
  'zuno.toggleTools': { title: 'Toggle Tools…', icon: '$(tools)' },
  'zuno.setPermissionMode': { title: 'Set Permission Mode', icon: '$(shield)' },
  'zuno.selectModel': { title: 'Select Model' },
  'zuno.setApiKey': { title: 'Set API Key' },
  'zuno.openToolLog': { title: 'Open Tool Log', icon: '$(output)' },
  'zuno.compact': { title: 'Compact Chat Context', icon: '$(fold)' },
  'zuno.mcpServers': { title: 'MCP Servers', icon: '$(server)' },
  'zuno.exportChat': { title: 'Export Chat', icon: '$(export)', viewTitle: { order: 4 } },
  'zuno.addSelectionToChat': {
    title: 'Add Selection to Chat',
    icon: '$(comment-discussion)',
    editorContext: { when: 'editorHasSelection' },
  },
  'zuno.approveProposal': { title: 'Approve Proposed Change', icon: '$(check)', editorTitle: { order: 1, when: PROPOSAL_CONTEXT_KEY } },
  'zuno.denyProposal': { title: 'Deny Proposed Change', icon: '$(close)', editorTitle: { order: 2, when: PROPOSAL_CONTEXT_KEY } },
} as const satisfies Record<string, CommandDefinition>;

export type CommandId = keyof typeof COMMANDS;

export const COMMAND_IDS = Object.keys(COMMANDS) as CommandId[];

/** The parts of package.json this module owns. */
export interface ContributedManifest {
  readonly categories: readonly string[];
  /** The marketplace icon; vsce accepts only PNG there (the activity bar uses media/zuno.svg). */
  readonly icon: string;
  readonly extensionKind: readonly string[];
  readonly capabilities: Record<string, unknown>;
  readonly activationEvents: readonly string[];
  readonly contributes: Record<string, unknown>;
}

export function contributedManifest(): ContributedManifest {
  const commandEntries = COMMAND_IDS.map((command) => {
    const definition: CommandDefinition = COMMANDS[command];
    return { command, title: definition.title, category: 'Zuno', ...(definition.icon ? { icon: definition.icon } : {}) };
  });
  const viewTitle = COMMAND_IDS.flatMap((command) => {
    const definition: CommandDefinition = COMMANDS[command];
    if (!definition.viewTitle) return [];
    const when = [`view == ${CHAT_VIEW_ID}`, ...(definition.viewTitle.when ? [definition.viewTitle.when] : [])].join(' && ');
    return [{ command, when, group: `navigation@${definition.viewTitle.order}` }];
  });
  const editorTitle = COMMAND_IDS.flatMap((command) => {
    const definition: CommandDefinition = COMMANDS[command];
    return definition.editorTitle
      ? [{ command, when: definition.editorTitle.when, group: `navigation@${definition.editorTitle.order}` }]
      : [];
  });
  // A command that acts on the editor it is shown for makes no sense from the palette elsewhere.
  const commandPalette = COMMAND_IDS.flatMap((command) => {
    const definition: CommandDefinition = COMMANDS[command];
    return definition.editorTitle ? [{ command, when: definition.editorTitle.when }] : [];
  });
  const editorContext = COMMAND_IDS.flatMap((command) => {
    const definition: CommandDefinition = COMMANDS[command];
    return definition.editorContext ? [{ command, when: definition.editorContext.when, group: 'zuno@1' }] : [];
  });
  return {
    categories: ['AI', 'Chat'],
    icon: 'media/icon.png',
    // Runs where the files are (Remote-SSH, Dev Containers, Codespaces), so the sandbox is detected there (issue 12).
    extensionKind: ['workspace'],
    capabilities: {
      // Zuno runs commands and hooks that a workspace's settings and .zuno/config.json name, so it
      // must not run in a folder the user has not trusted.
      untrustedWorkspaces: {
        supported: false,
        description: 'Zuno runs commands and edits files in the workspace, as configured by the workspace.',
      },
    },
    // Lazy: nothing runs until the Chat view opens or a command is invoked (issue 4, Activation).
    activationEvents: [`onView:${CHAT_VIEW_ID}`, ...COMMAND_IDS.map((command) => `onCommand:${command}`)],
    contributes: {
      viewsContainers: {
        activitybar: [{ id: VIEW_CONTAINER_ID, title: 'Zuno', icon: 'media/zuno.svg' }],
      },
      views: {
        [VIEW_CONTAINER_ID]: [{ type: 'webview', id: CHAT_VIEW_ID, name: 'Chat' }],
      },
      commands: commandEntries,
      menus: { 'view/title': viewTitle, 'editor/title': editorTitle, 'editor/context': editorContext, commandPalette },
      configuration: contributedConfiguration(),
    },
  };
}
