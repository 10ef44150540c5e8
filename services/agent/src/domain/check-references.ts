import type { AgentConfig, Connection, FieldError } from '@platform/contracts';
import { NotFoundError, ValidationError } from '@platform/kit';
import type { AgentDeps } from '../deps.ts';
import { handoffTargetProblem } from '../tools/handoff-tool.ts';
import { workflowExists } from '../tools/workflow-tool.ts';

/**
 * Checks what a configuration points to in other services, so that a typo is a 400 naming the field
 * now rather than a failed conversation later: the provider's connection is an OpenAI-compatible
 * connection of the organization (with a model, its own or the connection's default), each integration
 * action tool names an existing connection and action, each workflow tool an existing workflow, each
 * handoff tool another agent of the organization that is not archived (`selfId`: the agent being
 * saved, absent on create). If a service cannot be asked, the kit's 503 propagates: nothing
 * unverified is saved.
 */
export async function checkReferences(
  deps: AgentDeps,
  orgId: string,
  config: AgentConfig,
  requestId: string,
  selfId?: string,
) {
  const errors: FieldError[] = [];
  const connection = async (connectionId: string): Promise<Connection | undefined> => {
    try {
      return await deps.catalog.connection(orgId, connectionId, requestId);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  };
  if (config.provider.kind === 'openai') {
    const field = 'provider.connectionId';
    const found = await connection(config.provider.connectionId);
    if (!found) {
      errors.push({ field, message: 'is not a connection of this organization', location: 'body' });
    } else if (found.integrationId !== 'openai') {
      errors.push({
        field,
        message: `is a ${found.integrationId} connection, not an OpenAI-compatible one`,
        location: 'body',
      });
    } else if (!config.model && !found.settings.defaultModel) {
      errors.push({
        field: 'model',
        message: 'is required: the connection has no defaultModel',
        location: 'body',
      });
    }
  }
  for (const [i, tool] of config.tools.entries()) {
    if (tool.type === 'integration_action') {
      const found = await connection(tool.connectionId);
      if (!found) {
        errors.push({
          field: `tools.${i}.connectionId`,
          message: 'is not a connection of this organization',
          location: 'body',
        });
        continue;
      }
      const integration = await deps.catalog.integration(found.integrationId, requestId);
      if (!integration.actions.some((a) => a.id === tool.action)) {
        const known = integration.actions.map((a) => a.id).join(', ');
        errors.push({
          field: `tools.${i}.action`,
          message: `is not an action of ${integration.name} (${known})`,
          location: 'body',
        });
      }
    } else if (tool.type === 'handoff') {
      const problem = await handoffTargetProblem(deps, orgId, tool.agentId, selfId);
      if (problem) errors.push({ field: `tools.${i}.agentId`, message: problem, location: 'body' });
    } else if (tool.type === 'workflow') {
      if (!(await workflowExists(deps, orgId, tool.workflowId, requestId))) {
        errors.push({
          field: `tools.${i}.workflowId`,
          message: 'is not a workflow of this organization',
          location: 'body',
        });
      }
    }
  }
  if (errors.length > 0)
    throw new ValidationError(errors, 'The configuration refers to things that do not exist');
}
