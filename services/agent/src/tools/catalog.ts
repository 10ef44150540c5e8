import type { NatsConnection } from '@nats-io/transport-node';
import {
  integrationRpc,
  type Connection,
  type Integration,
  type IntegrationAction,
} from '@platform/contracts';
import { rpcRequest } from '@platform/kit';

/**
 * Lookups in the integration service: a connection of an organization (which integration, its
 * settings) and an integration's actions (descriptions and input schemas become tool definitions).
 * Answers are cached for `ttlMs`: an action catalog changes only with a deployment.
 */
export class Catalog {
  private readonly integrations = new Map<string, { at: number; value: Integration }>();
  private readonly connections = new Map<string, { at: number; value: Connection }>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly ttlMs: number,
  ) {}

  private fresh<T>(entry: { at: number; value: T } | undefined): T | undefined {
    return entry && Date.now() - entry.at < this.ttlMs ? entry.value : undefined;
  }

  /** Throws NotFoundError for a connection that is not the organization's. */
  async connection(orgId: string, connectionId: string, requestId?: string): Promise<Connection> {
    const key = `${orgId}:${connectionId}`;
    const cached = this.fresh(this.connections.get(key));
    if (cached) return cached;
    const value = await rpcRequest(
      this.nc,
      integrationRpc.getConnection,
      { orgId, connectionId },
      { requestId },
    );
    this.connections.set(key, { at: Date.now(), value });
    return value;
  }

  async integration(id: string, requestId?: string): Promise<Integration> {
    const cached = this.fresh(this.integrations.get(id));
    if (cached) return cached;
    const value = await rpcRequest(this.nc, integrationRpc.getIntegration, { id }, { requestId });
    this.integrations.set(id, { at: Date.now(), value });
    return value;
  }

  /** The action of a connection's integration, or undefined when the integration has no such action. */
  async action(
    orgId: string,
    connectionId: string,
    action: string,
    requestId?: string,
  ): Promise<IntegrationAction | undefined> {
    const connection = await this.connection(orgId, connectionId, requestId);
    const integration = await this.integration(connection.integrationId, requestId);
    return integration.actions.find((a) => a.id === action);
  }
}
