/**
 * Which tools exist and which the model is offered (SPEC S1–S3, A1). Four things are kept apart:
 * the registered tools (slots included), the default surface, the `tools` on/off switches in
 * config, and an agent's allowlist, which replaces the default surface instead of extending it.
 * Availability is not authorization: that is the permission policy's job.
 */
import type { CallEnvironment, Tool } from './tool';

export interface ToolRegistration {
  readonly tool: Tool;
  /** On the default surface (S1/S2), or only a registered slot (S3: edit, execute, lsp). */
  readonly defaultSurface: boolean;
}

export type Availability = { readonly available: true; readonly tool: Tool } | { readonly available: false; readonly reason: string };

export class ToolRegistry {
  private readonly registrations = new Map<string, ToolRegistration>();

  constructor(registrations: readonly ToolRegistration[]) {
    for (const registration of registrations) {
      const name = registration.tool.name;
      if (this.registrations.has(name)) throw new Error(`Two tools are registered under the name "${name}".`);
      this.registrations.set(name, registration);
    }
  }

  /** Any registered tool, slot or not. */
  get(name: string): Tool | undefined {
    return this.registrations.get(name)?.tool;
  }

  /** Every registered name, in registration order. */
  names(): string[] {
    return [...this.registrations.keys()];
  }

  /**
   * What the model is offered: the default surface, or an agent allowlist that replaces it (A1),
   * minus tools switched off in config, minus tools unavailable here. Registration order.
   */
  surface(env: CallEnvironment, allowlist?: readonly string[]): Tool[] {
    const tools: Tool[] = [];
    for (const name of this.registrations.keys()) {
      const availability = this.availability(name, env, allowlist);
      if (availability.available) tools.push(availability.tool);
    }
    return tools;
  }

  /** Why `name` may not be called here, or the tool when it may. */
  availability(name: string, env: CallEnvironment, allowlist?: readonly string[]): Availability {
    const registration = this.registrations.get(name);
    if (!registration) {
      const offered = this.surface(env, allowlist).map((tool) => tool.name);
      return { available: false, reason: `There is no tool named "${name}". The tools you can call are: ${offered.join(', ') || '(none)'}.` };
    }
    if (allowlist) {
      if (!allowlist.includes(name)) {
        return { available: false, reason: `"${name}" is not in this agent's tool allowlist (${allowlist.join(', ') || 'empty'}).` };
      }
    } else if (!registration.defaultSurface) {
      return { available: false, reason: `"${name}" is a registered slot that is not on the default tool surface; only an agent whose tool allowlist names it may call it.` };
    }
    if (env.config.tools[name] === false) {
      return { available: false, reason: `"${name}" is switched off in config (tools.${name} = false).` };
    }
    let unavailable: string | undefined;
    try {
      unavailable = registration.tool.unavailableReason(env);
    } catch (error) {
      unavailable = `its availability check failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (unavailable !== undefined) return { available: false, reason: `"${name}" is not available here: ${unavailable}` };
    return { available: true, tool: registration.tool };
  }
}
