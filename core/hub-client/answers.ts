import { aNumber, aString, listOf, nullable, objectWith, optional } from './shape.js';

/**
 * The hub API answers the CLI reads (docs/hub-registry.md), each with the shape it is checked
 * against before use: only the fields a command reads are required.
 */

/** GET /api/v1/user */
export interface HubUser {
  login: string;
  token: { scopes: string[]; kind: string };
}
export const userShape = objectWith({ login: aString, token: objectWith({ scopes: listOf(aString), kind: aString }) });

/** PUT /api/v1/skits/:owner/:name/releases/:version */
export interface PublishedRelease {
  release: { bundleHash: string; url: string; wellKnownIndex: string; skills: { id: string; hash: string }[] };
  skit: { visibility: string };
}
export const publishedShape = objectWith({
  release: objectWith({ bundleHash: aString, url: aString, wellKnownIndex: aString, skills: listOf(objectWith({ id: aString, hash: aString })) }),
  skit: objectWith({ visibility: aString }),
});

/** One SKIT of GET /api/v1/skits */
export interface RemoteSkit {
  id: string;
  visibility: string;
  latestVersion: string | null;
  description: string;
  skills: string[];
  deprecated: { message: string } | null;
}

/** GET /api/v1/skits: a keyset page (`next`), or an offset page of an older hub (`total`) */
export interface SkitPage {
  total?: number;
  next?: string;
  skits: RemoteSkit[];
}
export const skitPageShape = objectWith({
  total: optional(aNumber),
  next: optional(aString),
  skits: listOf(
    objectWith({
      id: aString,
      visibility: aString,
      latestVersion: nullable(aString),
      description: aString,
      skills: listOf(aString),
      deprecated: optional(nullable(objectWith({ message: aString }))),
    }),
  ),
});
