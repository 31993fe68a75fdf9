import { type CallToolResult, fromJsonSchema, McpServer, type ServerContext } from '@modelcontextprotocol/server';
import type { Static } from 'typebox';
import { artifactDetail, artifactFile, listArtifacts } from '../artifacts/artifacts.js';
import { balanceView } from '../billing/billing.js';
import type { AppContext } from '../context.js';
import { strategyOf } from '../identity/credential-strategies.js';
import { requireCallerScope } from '../identity/oauth-scopes.js';
import { limitCallerExecutionStarts } from '../identity/rate-limits.js';
import { marketplacePage } from '../marketplace/marketplace.js';
import type { Caller } from '../ports/callers.js';
import type { ExecutionEvent } from '../runs/event-codec.js';
import { cancelRun } from '../runs/run-control.js';
import { executionReport, runPageUrl } from '../runs/run-report.js';
import { mcpInterfaceOf } from './access.js';
import { decodeInlineFiles, storeInlineFile } from './inline-files.js';
import {
  ExecutionInput,
  ListArtifactsInput,
  NoInput,
  ReadArtifactInput,
  RunSkillInput,
  RunSkillOutput,
  UploadFileInput,
} from './mcp.schemas.js';
import { progressMessageOf, runSkillToEnd } from './run-skill.js';
import { artifactFileUrl, artifactLink, artifactUrl, fileContent, jsonResult, toolAnswer } from './tool-results.js';

// Converted once: every request builds a server of its own (stateless MCP), and these are
// the same for all of them.
const schemas = {
  none: fromJsonSchema<Static<typeof NoInput>>(NoInput),
  runSkill: fromJsonSchema<Static<typeof RunSkillInput>>(RunSkillInput),
  runSkillOutput: fromJsonSchema<Static<typeof RunSkillOutput>>(RunSkillOutput),
  execution: fromJsonSchema<Static<typeof ExecutionInput>>(ExecutionInput),
  listArtifacts: fromJsonSchema<Static<typeof ListArtifactsInput>>(ListArtifactsInput),
  readArtifact: fromJsonSchema<Static<typeof ReadArtifactInput>>(ReadArtifactInput),
  uploadFile: fromJsonSchema<Static<typeof UploadFileInput>>(UploadFileInput),
};

const SERVER_INFO = { name: 'skillet', version: '0.1.0' };
const SKILL_PAGE = 100;
const ARTIFACT_PAGE = 20;

/** Every skill the caller can run, in slug order (the server's and the workspace's own): the marketplace's pages, end to end. */
async function allSkills(ctx: AppContext, caller: Caller) {
  const items = [];
  for (let offset = 0; ; offset += SKILL_PAGE) {
    const page = await marketplacePage(ctx, caller.workspaceId, caller.userId, { limit: SKILL_PAGE, offset });
    items.push(...page.items);
    if (!page.hasMore) return items;
  }
}

/**
 * Sends the client a progress notification per event worth a line, when it asked for
 * progress (a progressToken). A notification that cannot be sent (the client left) is
 * dropped: the run goes on either way.
 */
function progressReporter(ctx: ServerContext): (event: ExecutionEvent) => void {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return () => {};
  let progress = 0;
  return (event) => {
    const message = progressMessageOf(event);
    if (message === null) return;
    progress += 1;
    ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, message } }).catch(() => {});
  };
}

/**
 * The MCP server one request is served by, acting for `caller`: the tools of DESIGN §10,
 * each one call of the domain functions REST uses, so workspace scoping, credits, the
 * one-run-per-workspace rule and the execution-start limit hold here as they do there.
 */
export function mcpServerFor(ctx: AppContext, caller: Caller): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions: 'Skillet runs skills: list_skills, then run_skill; runs write artifacts you can list and read.',
  });
  const answer = (work: () => Promise<CallToolResult>, signal?: AbortSignal) => toolAnswer(ctx.log, work, signal);
  const requireWrite = () => requireCallerScope(caller, 'write', ctx.config.oauthEnforceScopes, strategyOf(caller.kind).name);

  server.registerTool(
    'list_skills',
    {
      description: 'Lists the skills you can run: this server’s and those installed into your workspace (source workspace).',
      inputSchema: schemas.none,
    },
    async () => answer(async () => jsonResult({ skills: await allSkills(ctx, caller) })),
  );

  server.registerTool(
    'run_skill',
    {
      description:
        'Runs a skill on an input text and waits for it to end, with progress notifications while it runs. Give it files by id (files) or small ones inline (inline_files, base64); the run reads them in its uploads folder. Answers with its output text, a link per artifact it wrote, and its execution id, status, stop reason and cost.',
      inputSchema: schemas.runSkill,
      outputSchema: schemas.runSkillOutput,
    },
    async (args, requestCtx) =>
      answer(async () => {
        requireWrite();
        await limitCallerExecutionStarts(ctx, caller);
        // Declared in the 2026 revision's per-request envelope; a 2025 stateless request
        // carries no name after initialize, so it runs as plain `mcp`.
        const clientName = server.server.getClientVersion()?.name;
        const run = {
          skillSlug: args.skill_slug,
          input: args.input,
          interface: mcpInterfaceOf(clientName),
          fileIds: args.files,
          inlineFiles: args.inline_files,
        };
        const report = await runSkillToEnd(ctx, caller, run, progressReporter(requestCtx), requestCtx.mcpReq.signal);
        const structured = {
          executionId: report.executionId,
          status: report.status,
          stopReason: report.stopReason,
          cost: report.cost,
          artifactIds: report.artifacts.map((artifact) => artifact.id),
          webUrl: runPageUrl(ctx.config.publicUrl, report.executionId),
        };
        // A run that did not complete says so first: the output alone could read as success.
        const ending =
          report.status === 'completed'
            ? []
            : [`The run did not complete: status ${report.status}, stop reason ${report.stopReason ?? 'none'}.`];
        const output = [...ending, report.output].filter((line) => line !== '').join('\n') || 'The run completed with no output.';
        const text = `${output}\n\nRun page: ${structured.webUrl}`;
        return {
          content: [{ type: 'text', text }, ...report.artifacts.map((artifact) => artifactLink(ctx.config.publicUrl, artifact))],
          structuredContent: structured,
        };
      }, requestCtx.mcpReq.signal),
  );

  server.registerTool(
    'upload_file',
    {
      description:
        'Stores one file (base64, at most 5 MB) in your workspace and answers its record; pass its id in run_skill files. Unused files expire after 7 days.',
      inputSchema: schemas.uploadFile,
    },
    async (args) =>
      answer(async () => {
        requireWrite();
        const [bytes = Buffer.alloc(0)] = decodeInlineFiles([args], 'A file');
        return jsonResult({ ...(await storeInlineFile(ctx, caller, args.filename, bytes)) });
      }),
  );

  server.registerTool(
    'get_execution',
    {
      description: 'Shows an execution: its status, stop reason, cost, output text and artifacts.',
      inputSchema: schemas.execution,
    },
    async (args) =>
      answer(async () => {
        const { artifacts, ...report } = await executionReport(ctx, caller, args.executionId);
        return jsonResult(
          { ...report, artifactIds: artifacts.map((artifact) => artifact.id) },
          artifacts.map((artifact) => artifactLink(ctx.config.publicUrl, artifact)),
        );
      }),
  );

  server.registerTool(
    'cancel_execution',
    { description: 'Stops a running execution.', inputSchema: schemas.execution },
    async (args) =>
      answer(async () => {
        requireWrite();
        return jsonResult({ ...(await cancelRun(ctx, caller, args.executionId)) });
      }),
  );

  server.registerTool(
    'list_artifacts',
    { description: 'Lists the artifacts your runs wrote, newest first.', inputSchema: schemas.listArtifacts },
    async (args) =>
      answer(async () => {
        const limit = args.limit ?? ARTIFACT_PAGE;
        const offset = args.offset ?? 0;
        const { items, total } = await listArtifacts(ctx, caller, limit, offset);
        return jsonResult({ items, total, limit, offset, hasMore: offset + items.length < total });
      }),
  );

  server.registerTool(
    'read_artifact',
    {
      description:
        "Reads an artifact: its details and its main file's text, or with `path` one file of a bundle (text as text, other files as base64).",
      inputSchema: schemas.readArtifact,
    },
    async (args) =>
      answer(async () => {
        const { artifactId, path } = args;
        if (path !== undefined) {
          const uri = artifactFileUrl(ctx.config.publicUrl, artifactId, path);
          return { content: [await fileContent(await artifactFile(ctx, caller, artifactId, path), uri)] };
        }
        const { content, ...view } = await artifactDetail(ctx, caller, artifactId);
        const main =
          content === ''
            ? []
            : [
                {
                  type: 'resource' as const,
                  resource: { uri: artifactUrl(ctx.config.publicUrl, artifactId), mimeType: view.fileType, text: content },
                },
              ];
        return jsonResult({ ...view }, main);
      }),
  );

  server.registerTool(
    'get_balance',
    { description: 'Shows your credit balance (Ds) and whether you can run priced skills.', inputSchema: schemas.none },
    async () => answer(async () => jsonResult({ ...(await balanceView(ctx, caller)) })),
  );

  return server;
}
