import type { OperationReference } from '../http/operation-reference.js';
import { WORKSPACE } from '../identity/workspaces.reference.js';

/*
 * What the API reference says of the threads operations: the group, a summary and a description,
 * a request body to copy and an answer (most taken from a real server's answers, with the
 * addresses made public-looking). The OpenAPI document reads them (http/openapi.ts), and
 * openapi-docs.test.ts checks each example against its route's schema.
 */

export const threadsReference: OperationReference = {
  'GET /api/v1/agents': {
    doc: ['Assistant', 'List agents', 'The assistants a workspace can talk to in threads.'],
    response: {
      agents: [
        {
          id: 'assistant',
          name: 'Assistant',
          description:
            "Skillet's assistant: lists the workspace's skills, starts runs (with your approval) and reads their executions and artifacts.",
        },
        {
          id: 'agent-gpt',
          name: 'agent-gpt',
          description: 'Test agent skill that names an OpenAI model, so house calls go to the OpenAI-compatible server.',
        },
        {
          id: 'agent-hostile',
          name: 'agent-hostile',
          description:
            "Test agent skill whose scripts fight the sandbox's limits (a fork bomb, a CPU burner, a socket-buffer hoarder), for the kernel-limit tests.",
        },
        {
          id: 'agent-plain',
          name: 'agent-plain',
          description:
            'Test agent skill in the open Agent Skills format, with only the standard keys; the fake model decides what it does.',
        },
        {
          id: 'agent-priced',
          name: 'agent-priced',
          description:
            'Test agent skill with a price of 2 Ds, references and a Python script the instructions tell the model to run.',
        },
        {
          id: 'chart',
          name: 'chart',
          description:
            'Draws a clear chart (bar, line or scatter) as a PNG from a CSV file you upload, with matplotlib, and explains what it shows.',
        },
        {
          id: 'computer-hostile',
          name: 'computer-hostile',
          description:
            "Test skill whose scripts fight the computer's limits from bash (socket-buffer hoarding, files hidden by deleting them while open), for the kernel-limit tests.",
        },
        {
          id: 'data-summariser',
          name: 'data-summariser',
          description:
            'Summarises a CSV table: exact per-column statistics computed by a script, then a short written interpretation, saved as summary.md with the figures in stats.json.',
        },
        {
          id: 'pdf',
          name: 'pdf',
          description:
            'Works with the PDF files you upload — merges them, splits them into pages, pulls out their text, or fills in a simple form — and saves the resulting PDFs or text for you.',
        },
        {
          id: 'report-writer',
          name: 'report-writer',
          description:
            'Researches nothing and invents nothing; turns the notes, figures or question you give it into a clear, well-structured Markdown report, report.md.',
        },
        {
          id: 'shout-files',
          name: 'shout-files',
          description:
            'Test skill written the way public skills are (only a name and a description); its instructions have the model run its own script from /mnt/skills with bash.',
        },
        {
          id: 'site-builder',
          name: 'site-builder',
          description:
            'Builds a small static website (an index page, up to three more pages and one stylesheet) from a description of what it should say, as a bundle ready to publish.',
        },
        {
          id: 'xlsx',
          name: 'xlsx',
          description:
            'Reads the Excel workbooks you upload and writes new ones — sheets of data, with working formulas — using openpyxl; tell it what to look up, total or build.',
        },
      ],
    },
  },
  'GET /api/v1/agents/{agentId}/threads': {
    doc: [
      'Assistant',
      'List conversations',
      'The workspace’s threads with an agent, the most recently active first, each titled by its first message.',
    ],
    response: {
      items: [],
      total: 0,
      limit: 20,
      offset: 0,
      hasMore: false,
    },
  },
  'POST /api/v1/agents/{agentId}/subscribe-thread': {
    doc: [
      'Assistant',
      'Follow a thread',
      'A long-lived stream of the agent’s replies, approval requests and notifications for one thread; reconnect when it closes.',
    ],
    request: { resourceId: WORKSPACE, threadId: 'weekly-report' },
  },
  'POST /api/v1/agents/{agentId}/send-message': {
    doc: ['Assistant', 'Send a message to a thread', 'Posts a message; the reply arrives on the thread’s stream.'],
    request: {
      resourceId: WORKSPACE,
      threadId: 'weekly-report',
      message: 'Summarise this week’s sales CSV as a chart.',
    },
    response: {
      messageId: 'c2f8a1d4-6b3e-4f7a-9d0c-5e1b8a2f6d39',
      threadId: 'weekly-report',
    },
  },
  'POST /api/v1/chat/{agentId}': {
    doc: ['Assistant', 'Chat without a stream', 'Sends a message and answers with the agent’s reply to it.'],
    request: { message: 'Which skills can make a PDF?' },
  },
  'POST /api/v1/agents/{agentId}/threads/{threadId}/approvals/{approvalId}': {
    doc: ['Assistant', 'Answer an approval request', 'Allows or refuses a tool call the agent asked to make.'],
    request: { approved: true },
    response: {
      approvalId: 'a7e3c9f1-2b5d-4e8a-b6c0-9d4f1e7a3b52',
      threadId: 'weekly-report',
      tool: 'start_run',
      input: {
        skill: 'csv-chart',
        input: 'sales-q3.csv',
      },
      status: 'approved',
      createdAt: '2026-01-01T00:00:00.000Z',
      decidedAt: '2026-01-01T00:00:12.000Z',
    },
  },
};
