/**
 * skill: discovers and loads reusable instructions (SPEC S1; ReadOnly and Safe, R1). A skill is
 * a folder with a SKILL.md whose YAML frontmatter names and describes it; the body is the
 * instructions. Workspace skills (`.zuno/skills`) shadow user skills (`~/.zuno/skills`) of the
 * same name. A malformed skill is reported in the listing, never fatal to the others.
 */
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ToolError } from '../core/errors';
import { defineTool, type CallEnvironment } from '../core/tool';

const SKILL_FILE = 'SKILL.md';

export interface Skill {
  readonly name: string;
  readonly description: string;
  readonly path: string;
  readonly scope: 'workspace' | 'user';
  readonly body: string;
}

export interface SkillProblem {
  readonly path: string;
  readonly problem: string;
}

export interface SkillCatalogue {
  readonly skills: readonly Skill[];
  readonly problems: readonly SkillProblem[];
}

const frontmatterSchema = z.object({
  name: z.string({ error: 'needs a `name`' }).trim().min(1, 'needs a non-empty `name`'),
  description: z.string({ error: 'needs a `description`' }).trim().min(1, 'needs a non-empty `description`'),
});

/** Splits `---\nyaml\n---\nbody`; the frontmatter is required, because it names the skill. */
export function parseSkillFile(text: string): { name: string; description: string; body: string } {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  const match = /^---\n([\s\S]*?)\n---\n?([\s\S]*)$/.exec(normalized);
  if (!match) throw new Error('has no frontmatter: it must start with a `---` line, then `name:` and `description:`, then `---`');
  let data: unknown;
  try {
    data = parseYaml(match[1] ?? '');
  } catch (error) {
    throw new Error(`has invalid YAML frontmatter: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  const result = frontmatterSchema.safeParse(data ?? {});
  if (!result.success) throw new Error(`frontmatter ${result.error.issues.map((issue) => issue.message).join(', ')}`);
  return { name: result.data.name, description: result.data.description, body: (match[2] ?? '').trim() };
}

async function scan(env: CallEnvironment, directory: string, scope: Skill['scope']): Promise<SkillCatalogue> {
  const entries = await env.host.fs.readDirectory(directory).catch(() => []);
  const skills: Skill[] = [];
  const problems: SkillProblem[] = [];
  for (const entry of [...entries].sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.type !== 'directory' && entry.type !== 'symlink') continue;
    const path = join(directory, entry.name, SKILL_FILE);
    const stat = await env.host.fs.stat(path);
    if (!stat) continue;
    try {
      const parsed = parseSkillFile(new TextDecoder().decode(await env.host.fs.readFile(path)));
      skills.push({ ...parsed, path, scope });
    } catch (error) {
      problems.push({ path, problem: error instanceof Error ? error.message : String(error) });
    }
  }
  return { skills, problems };
}

export async function discoverSkills(env: CallEnvironment): Promise<SkillCatalogue> {
  const workspace = await scan(env, join(env.workspaceRoot, '.zuno', 'skills'), 'workspace');
  const user = env.host.userDirectory ? await scan(env, join(env.host.userDirectory, 'skills'), 'user') : { skills: [], problems: [] };
  const byName = new Map<string, Skill>();
  for (const skill of [...user.skills, ...workspace.skills]) byName.set(skill.name, skill);
  return {
    skills: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)),
    problems: [...workspace.problems, ...user.problems],
  };
}

const parameters = z.strictObject({
  action: z.enum(['list', 'load']).describe("`list` shows every skill with its description; `load` returns one skill's instructions."),
  name: z.string().min(1).optional().describe('The skill to load (required for `load`).'),
});

export const skillTool = defineTool({
  name: 'skill',
  description:
    'Discover and load reusable instructions ("skills") that the user keeps for this workspace (.zuno/skills/<name>/SKILL.md) ' +
    'or for all workspaces (~/.zuno/skills). Call with {"action":"list"} to see the skills and their descriptions; when one ' +
    'fits the task, call {"action":"load","name":"<name>"} and follow its instructions.',
  parameters,
  declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' },
  async run(args, context) {
    const catalogue = await discoverSkills(context);
    if (args.action === 'list') {
      const lines = catalogue.skills.map((skill) => `- ${skill.name} (${skill.scope}): ${skill.description}`);
      const problems = catalogue.problems.map((entry) => `- ${entry.path} ${entry.problem}`);
      const text = [
        lines.length > 0 ? `${lines.length} skill(s):\n${lines.join('\n')}` : 'No skills found in .zuno/skills or ~/.zuno/skills.',
        ...(problems.length > 0 ? [`\nSkipped ${problems.length} malformed skill file(s):\n${problems.join('\n')}`] : []),
      ].join('\n');
      return { output: text, metadata: { skills: catalogue.skills.map((skill) => skill.name), problems: catalogue.problems.length } };
    }
    if (!args.name) throw new ToolError('`load` needs a `name`. Call {"action":"list"} to see the available skills.');
    const skill = catalogue.skills.find((candidate) => candidate.name === args.name);
    if (!skill) {
      const known = catalogue.skills.map((candidate) => candidate.name).join(', ') || 'none';
      const problem = catalogue.problems.find((entry) => entry.path.includes(`/${args.name}/`));
      throw new ToolError(
        problem
          ? `The skill "${args.name}" could not be loaded: ${problem.path} ${problem.problem}.`
          : `No skill named "${args.name}". Known skills: ${known}.`,
      );
    }
    return { output: `# Skill: ${skill.name}\n(${skill.path})\n\n${skill.body}`, metadata: { path: skill.path } };
  },
});
