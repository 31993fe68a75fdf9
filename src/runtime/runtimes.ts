import type { RuntimeName } from '../ports/skills.js';
import { agentRuntime } from './agent/agent-runtime.js';
import type { RuntimeServices, SkillRuntime } from './runtime.js';
import { scriptRuntime } from './script/script-runtime.js';

/** The runtimes this server has, by the manifest's `runtime`; a new one is one line here. */
const RUNTIMES: Partial<Record<RuntimeName, (services: RuntimeServices) => SkillRuntime>> = {
  script: scriptRuntime,
  agent: agentRuntime,
};

/** The runtime for skills of `name`, or undefined when this server cannot run them. */
export function runtimeFor(name: RuntimeName, services: RuntimeServices): SkillRuntime | undefined {
  return RUNTIMES[name]?.(services);
}
