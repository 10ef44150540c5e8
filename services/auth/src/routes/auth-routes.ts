import type { Express } from 'express';
import { authRoutes } from '@platform/contracts';
import { mountRoute } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { acceptInvitation } from '../domain/accept-invitation.ts';
import { login } from '../domain/login.ts';
import { logout } from '../domain/logout.ts';
import { me } from '../domain/me.ts';
import { refresh } from '../domain/refresh.ts';
import { publicKeys } from '../domain/signing-keys.ts';
import { signup } from '../domain/signup.ts';

/** The client address as the gateway saw it (it drops any copy a client sends). */
const CLIENT_IP_HEADER = 'x-client-ip';

export function mountAuthRoutes(app: Express, deps: AuthDeps) {
  const secret = deps.config.INTERNAL_TOKEN_SECRET;
  mountRoute(app, authRoutes.signup, secret, ({ body }) => signup(deps, body));
  mountRoute(app, authRoutes.login, secret, ({ body, req }) =>
    login(deps, body, req.header(CLIENT_IP_HEADER) || undefined),
  );
  mountRoute(app, authRoutes.refresh, secret, ({ body }) => refresh(deps, body.refreshToken));
  mountRoute(app, authRoutes.logout, secret, ({ identity, req }) =>
    logout(deps, identity, req.header('authorization')),
  );
  mountRoute(app, authRoutes.me, secret, ({ identity }) => me(deps, identity));
  mountRoute(app, authRoutes.acceptInvitation, secret, ({ body }) => acceptInvitation(deps, body));
  mountRoute(app, authRoutes.jwks, secret, async ({ res }) => {
    res.setHeader('Cache-Control', 'public, max-age=60');
    return publicKeys(deps.db, deps.tokens.keyRetentionMs);
  });
}
