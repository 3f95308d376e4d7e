import { Hono } from 'hono';
import { FORGE_VERSION } from '../../core/version.js';
import type { HubEnv } from '../auth/principal.js';

export const healthRoutes = new Hono<HubEnv>().get('/healthz', (c) => c.json({ ok: true, version: FORGE_VERSION }));
