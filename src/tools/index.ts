/**
 * The built-in tools, listed one by one: a tool exists because it is named here, never because
 * some module happened to be imported. Other tools are appended to this list as they are built.
 */
import type { ToolRegistration } from '../core/registry';
import { globTool } from './glob';
import { grepTool } from './grep';
import { readTool } from './read';
import { shellTool } from './shell';
import { webfetchTool } from './webfetch';
import { writeTool } from './write';
import { applyPatchTool } from './apply_patch';
import { editTool } from './edit';
import { lspTool } from './lsp';
import { bgTool } from './bg';
import { taskTool } from './task';
import { jobTool } from './job';
import { councilRunTool } from './council_run';
import { executeTool } from './execute';
import { webSearchTool } from './web_search';
import { skillTool } from './skill';
import { questionTool } from './question';
import { planGetTool, planUpdateTool } from './plan';
import { todoGetTool, todoUpdateTool } from './todo';
import { goalGetTool, goalUpdateTool } from './goal';
import { memoryProposeTool } from './memory_propose';
import { sessionSearchTool } from './session_search';
import { sessionReadTool } from './session_read';

export function builtinToolRegistrations(): ToolRegistration[] {
  return [
    { tool: readTool, defaultSurface: true },
    { tool: globTool, defaultSurface: true },
    { tool: grepTool, defaultSurface: true },
    { tool: writeTool, defaultSurface: true },
    { tool: shellTool, defaultSurface: true },
    { tool: webfetchTool, defaultSurface: true },
    { tool: applyPatchTool, defaultSurface: true },
    { tool: editTool, defaultSurface: false },
    { tool: lspTool, defaultSurface: false },
    { tool: bgTool, defaultSurface: true },
    { tool: taskTool, defaultSurface: true },
    { tool: jobTool, defaultSurface: true },
    // Offered only when council.members is configured (its availability check says how).
    { tool: councilRunTool, defaultSurface: true },
    { tool: executeTool, defaultSurface: false },
    { tool: webSearchTool, defaultSurface: true },
    { tool: skillTool, defaultSurface: true },
    { tool: questionTool, defaultSurface: true },
    { tool: planGetTool, defaultSurface: true },
    { tool: planUpdateTool, defaultSurface: true },
    { tool: todoGetTool, defaultSurface: true },
    { tool: todoUpdateTool, defaultSurface: true },
    { tool: goalGetTool, defaultSurface: true },
    { tool: goalUpdateTool, defaultSurface: true },
    // Offered only when memory.enabled is set.
    { tool: memoryProposeTool, defaultSurface: true },
    { tool: sessionSearchTool, defaultSurface: true },
    { tool: sessionReadTool, defaultSurface: true },
  ];
}
