import type { Express } from 'express';
import { authRoutes } from '@platform/contracts';
import { mountRoute } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { login } from '../domain/login.ts';
import { me } from '../domain/me.ts';
import { signup } from '../domain/signup.ts';

export function mountAuthRoutes(app: Express, deps: AuthDeps) {
  const secret = deps.config.INTERNAL_TOKEN_SECRET;
  mountRoute(app, authRoutes.signup, secret, ({ body }) => signup(deps, body));
  mountRoute(app, authRoutes.login, secret, ({ body }) => login(deps, body));
  mountRoute(app, authRoutes.me, secret, ({ identity }) => me(deps, identity));
}
