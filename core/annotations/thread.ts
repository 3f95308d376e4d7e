import { SfError, type Diagnostic } from '../errors/index.js';
import { appendAll } from './append.js';
import { notJsonWarning } from './json-error.js';
import { parseBody } from './parse-body.js';
import type { ParseResult, ThreadComment } from './types.js';

export type Platform = 'github' | 'gitea' | 'gitlab' | 'gh-cli' | 'markdown' | 'unknown';

/** What `sf forge parse/check` read: the comments in chronological order and any labels found. */
export interface ThreadInput {
  platform: Platform;
  comments: ThreadComment[];
  /** labels carried by the input itself (e.g. `sf forge fetch --json` output), else null */
  labels: string[] | null;
  diagnostics: Diagnostic[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

function detectPlatform(items: Obj[]): Platform {
  const first = items[0] ?? {};
  if ('noteable_type' in first || (isObj(first.author) && 'username' in first.author)) return 'gitlab';
  if ('original_author' in first || 'pull_request_url' in first || 'assets' in first) return 'gitea';
  if ('node_id' in first || 'author_association' in first) return 'github';
  if ('createdAt' in first) return 'gh-cli';
  return 'unknown';
}

/**
 * Reduces a comments array as GitHub, Gitea (`body`, `user.login`), GitLab notes (`body` — or
 * `note` in webhook payloads —, `author.username`) or `gh --json comments` return it, and orders it
 * chronologically: GitLab lists notes newest first by default. Each comment keeps its position in
 * `items` as `index`.
 */
export function normalizeComments(items: readonly unknown[]): Omit<ThreadInput, 'labels'> {
  const diagnostics: Diagnostic[] = [];
  const objects = items.filter(isObj);
  const platform = detectPlatform(objects);
  const comments: ThreadComment[] = [];
  items.forEach((item, i) => {
    const o = isObj(item) ? item : {};
    const body = str(o.body) ?? str(o.note);
    if (body === undefined) {
      diagnostics.push({ code: 'FORGE_COMMENT_NO_BODY', severity: 'warning', message: `comments[${i}] has no "body" or "note" string; skipped`, file: `comments[${i}]` });
      return;
    }
    const user = isObj(o.user) ? o.user : isObj(o.author) ? o.author : {};
    const id = typeof o.id === 'number' || typeof o.id === 'string' ? o.id : undefined;
    comments.push({
      // the position in the input, so "comment N" is always its Nth element, whatever was skipped or reordered
      index: i,
      body,
      ...(id !== undefined ? { id } : {}),
      ...(str(user.login) ?? str(user.username) ? { author: str(user.login) ?? str(user.username) } : {}),
      // submitted_at: a pull request review (GitHub, Gitea)
      ...(str(o.created_at) ?? str(o.createdAt) ?? str(o.submitted_at) ? { createdAt: str(o.created_at) ?? str(o.createdAt) ?? str(o.submitted_at) } : {}),
      ...(str(o.html_url) ?? str(o.url) ? { url: str(o.html_url) ?? str(o.url) } : {}),
    });
  });
  const dated = comments.every((c) => c.createdAt !== undefined && !Number.isNaN(Date.parse(c.createdAt)));
  if (dated) {
    comments.sort((a, b) => Date.parse(a.createdAt!) - Date.parse(b.createdAt!) || (typeof a.id === 'number' && typeof b.id === 'number' ? a.id - b.id : 0) || a.index - b.index);
  }
  return { platform, comments, diagnostics };
}

/** Label names from `[{name}]`, `["name"]`, `[{title}]` (GitLab webhooks) or `{labels: [...]}` (GitHub, Gitea, GitLab, gh). */
export function normalizeLabels(value: unknown): string[] {
  const list = isObj(value) ? value.labels : value;
  if (!Array.isArray(list)) {
    throw new SfError('SF_E_ANNOTATION', 'labels must be an array of names or of {"name": ...} objects', {
      hint: 'pass the issue labels as GitHub returns them, e.g. [{"name": "workflow:merged"}]',
    });
  }
  return list.map((l) => (typeof l === 'string' ? l : isObj(l) ? (str(l.name) ?? str(l.title)) : undefined)).filter((l): l is string => l !== undefined);
}

/** A login from `"name"`, `{login}` (GitHub, Gitea, gh) or `{username}` (GitLab). */
function login(v: unknown): string | undefined {
  if (typeof v === 'string') return v || undefined;
  return isObj(v) ? (str(v.login) ?? str(v.username)) || undefined : undefined;
}

/**
 * The issue body of a thread document as a comment ahead of all others: GitHub, Gitea and gh
 * `body`, GitLab `description`; by `author` (gh, `sf forge fetch`, GitLab) or `user` (GitHub).
 * It is no element of the comments array, so its index is -1 (`issueBody: true`).
 */
function issueBodyOf(doc: Obj): ThreadComment | null {
  const body = str(doc.body) ?? str(doc.description);
  if (body === undefined) return null;
  const author = login(doc.author) ?? login(doc.user);
  const createdAt = str(doc.createdAt) ?? str(doc.created_at);
  const url = str(doc.url) ?? str(doc.html_url) ?? str(doc.web_url);
  return { index: -1, issueBody: true, body, ...(author ? { author } : {}), ...(createdAt ? { createdAt } : {}), ...(url ? { url } : {}) };
}

/**
 * Reads a parsed thread document: a comments array; an object with a `comments` array, optionally
 * `labels` and the issue's own `body` (GitLab: `description`) as `gh issue view --json
 * body,comments,labels` and `sf forge fetch --json` write it; a GitLab Note Hook payload; or a
 * single comment object.
 */
export function readThreadDocument(json: unknown): ThreadInput {
  if (Array.isArray(json)) return { ...normalizeComments(json), labels: null };
  if (isObj(json) && json.object_kind === 'note' && isObj(json.object_attributes)) return readNoteHook(json, json.object_attributes);
  if (isObj(json)) {
    if (Array.isArray(json.comments)) {
      const thread = normalizeComments(json.comments);
      // `sf forge fetch --json` says which platform it read; a pull request review first would look like Gitea's
      if (json.platform === 'github' || json.platform === 'gitea' || json.platform === 'gitlab') thread.platform = json.platform;
      const issue = issueBodyOf(json);
      // `sf forge fetch --json` writes "labels": null when it read none
      const labels = json.labels === undefined || json.labels === null ? null : normalizeLabels(json.labels);
      return { ...thread, comments: issue ? [issue, ...thread.comments] : thread.comments, labels };
    }
    if (typeof json.body === 'string' || typeof json.note === 'string') return { ...normalizeComments([json]), labels: null };
  }
  throw new SfError('SF_E_ANNOTATION', 'the JSON input is neither a comments array nor an object with "comments" or "body"', {
    hint: 'pass the output of GET /repos/{owner}/{repo}/issues/{n}/comments, or a Markdown file',
  });
}

/**
 * A GitLab Note Hook payload (`object_kind: "note"`): the note is `object_attributes` (`note`, `id`,
 * `created_at`, `url`) and its author the top-level `user.username`; the issue or merge request it
 * was posted on gives the labels (`[{title}]`) and the issue body (`description`).
 */
function readNoteHook(hook: Obj, note: Obj): ThreadInput {
  const thread = normalizeComments([{ ...note, ...(isObj(hook.user) ? { author: hook.user } : {}) }]);
  const on = isObj(hook.issue) ? hook.issue : isObj(hook.merge_request) ? hook.merge_request : null;
  const labels = on && Array.isArray(on.labels) ? normalizeLabels(on.labels) : null;
  // the hook names the issue's author by id only
  const issue = on ? issueBodyOf({ description: on.description, url: on.url }) : null;
  return { ...thread, platform: 'gitlab', comments: issue ? [issue, ...thread.comments] : thread.comments, labels };
}

/**
 * Reads `sf forge parse/check` input: a JSON thread document (see readThreadDocument), or
 * otherwise a plain Markdown body.
 */
export function readThreadInput(text: string): ThreadInput {
  const trimmed = text.trim();
  let json: unknown;
  const diagnostics: Diagnostic[] = [];
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    try {
      json = JSON.parse(trimmed);
    } catch (e) {
      // read as a Markdown body that starts with a bracket, but say so: it may be a broken thread
      diagnostics.push(notJsonWarning(text, e));
    }
  }
  if (Array.isArray(json) || isObj(json)) return readThreadDocument(json);
  return { platform: 'markdown', comments: [{ index: 0, body: text }], labels: null, diagnostics };
}

/**
 * Parses every comment of a thread, in the order given (chronological, as readThreadInput returns
 * them): the annotations come out in that order, which the label and chain checks rely on, and
 * carry their comment reference.
 */
export function parseThread(comments: readonly ThreadComment[]): ParseResult {
  const result: ParseResult = { annotations: [], diagnostics: [] };
  for (const c of comments) {
    const source = c.issueBody ? 'issue body' : comments.length === 1 && c.id === undefined ? undefined : `comment ${c.index + 1}${c.id !== undefined ? ` (id ${c.id})` : ''}`;
    const comment = { index: c.index, ...(c.issueBody ? { issueBody: true as const } : {}), ...(c.id !== undefined ? { id: c.id } : {}), ...(c.author ? { author: c.author } : {}), ...(c.createdAt ? { createdAt: c.createdAt } : {}), ...(c.url ? { url: c.url } : {}) };
    const r = parseBody(c.body, { source, comment });
    appendAll(result.annotations, r.annotations);
    appendAll(result.diagnostics, r.diagnostics);
  }
  return result;
}
