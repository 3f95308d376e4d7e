import type { AttributeDef, AttributeUse, ResolvedRegistry, UsageGroup } from './model.js';
import { allowedValues, METRIC_DIMENSIONS_GROUP } from './names.js';

/** Make text safe inside a Markdown table cell. */
function cell(text: string): string {
  // Escape HTML outside backtick code spans only; inside them an entity would print literally.
  return text
    .replace(/\s+/g, ' ')
    .replace(/\|/g, '\\|')
    .split('`')
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/</g, '&lt;').replace(/>/g, '&gt;')))
    .join('`')
    .trim();
}

function code(text: string | number): string {
  return `\`${String(text)}\``;
}

function anchor(id: string): string {
  return id.toLowerCase().replace(/[^a-z0-9_ -]/g, '').replace(/ /g, '-');
}

function table(head: string[], rows: string[][]): string[] {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`), ''];
}

function requirement(u: AttributeUse): string {
  const level = u.requirement.level.replace(/_/g, ' ');
  return u.requirement.condition === undefined ? level : `${level}: ${cell(u.requirement.condition)}`;
}

function examples(def: AttributeDef): string {
  return (def.examples ?? []).map((e) => code(JSON.stringify(e))).join(', ');
}

function attributeRows(defs: AttributeDef[], byId: Map<string, AttributeDef>): string[][] {
  return defs.map((a) => {
    const values = a.type === 'enum' ? undefined : allowedValues(a, byId);
    let brief = cell(a.brief);
    if (a.note !== undefined) brief += ` ${cell(a.note)}`;
    if (a.type === 'enum') brief += ` Values: see [below](#${anchor(`${a.id} values`)}).`;
    if (a.valuesFrom !== undefined) brief += ` Values: those of ${code(a.valuesFrom)}.`;
    else if (values !== undefined) brief += ` Values: ${values.map(code).join(', ')}.`;
    return [code(a.id), code(a.type), a.stability, a.requirementLevel.level.replace(/_/g, ' '), brief, examples(a)];
  });
}

/** Uses a group adds or changes relative to the group it extends. */
function ownUses(group: UsageGroup, groups: Map<string, UsageGroup>): AttributeUse[] {
  const parent = group.extends === undefined ? undefined : groups.get(group.extends);
  if (parent === undefined) return group.attributes;
  const inherited = new Map(parent.attributes.map((u) => [u.id, JSON.stringify(u)]));
  return group.attributes.filter((u) => inherited.get(u.id) !== JSON.stringify(u));
}

/** Notes given where a group reuses an attribute (e.g. what artifact.version means here), by attribute id. */
function useNotes(registry: ResolvedRegistry): Map<string, string> {
  const notes = new Map<string, string>();
  for (const g of registry.attributeGroups) for (const u of g.attributes) if (u.note !== undefined && !notes.has(u.id)) notes.set(u.id, u.note);
  return notes;
}

function usageTable(uses: AttributeUse[], byId: Map<string, AttributeDef>, notes: Map<string, string>): string[] {
  return table(
    ['Attribute', 'Type', 'Requirement', 'Description'],
    uses.map((u) => [code(u.id), code(byId.get(u.id)!.type), requirement(u), cell([u.brief ?? byId.get(u.id)!.brief, u.note ?? notes.get(u.id) ?? ''].join(' '))]),
  );
}

/** Render docs/semconv.md from the resolved registry. */
export function renderSemconvMd(registry: ResolvedRegistry, header: string): string {
  const byId = new Map(registry.attributes.map((a) => [a.id, a]));
  const groups = new Map<string, UsageGroup>(registry.attributeGroups.map((g) => [g.id, g]));
  const reuseNotes = useNotes(registry);
  const out: string[] = [header, '', '# Agent Skill semantic conventions', ''];
  out.push(cell(registry.description), '');
  out.push(...table(['Registry', 'Version', 'Stability', 'Schema URL'], [[code(registry.name), registry.version, registry.stability, registry.schemaUrl]]));
  out.push(`Reused OpenTelemetry attributes are pinned to semantic conventions **${registry.otel.semconvVersion}** (schema URL ${registry.otel.schemaUrl}).`);
  out.push('The source is the OpenTelemetry Weaver registry in `schemas/semconv/` (`weaver registry check -r schemas/semconv`).', '');
  out.push('Contents: [Attributes](#attributes) · [Reused OpenTelemetry attributes](#reused-opentelemetry-attributes) · [Attribute groups](#attribute-groups) · [Events](#events) · [Metrics](#metrics) · [Spans](#spans)', '');

  out.push('## Attributes', '');
  for (const g of registry.registryGroups) {
    out.push(`### ${g.displayName ?? g.id}`, '', `Group ${code(g.id)}: ${cell(g.brief)}`, '');
    const defs = g.attributeIds.map((id) => byId.get(id)!).sort((a, b) => (a.id < b.id ? -1 : 1));
    out.push(...table(['Attribute', 'Type', 'Stability', 'Default requirement', 'Description', 'Examples'], attributeRows(defs, byId)));
    for (const a of defs.filter((d) => d.type === 'enum')) {
      out.push(`#### ${a.id} values`, '');
      out.push(...table(['Value', 'Description', 'Stability'], a.members!.map((m) => [code(m.value), cell(m.brief), m.stability])));
    }
  }

  out.push('## Reused OpenTelemetry attributes', '');
  out.push(`Referenced with Weaver \`ref:\` from OpenTelemetry semantic conventions ${registry.otel.semconvVersion}; never redefined or given Forge-specific meaning.`, '');
  const otel = registry.attributes.filter((a) => a.origin === 'otel');
  out.push(...table(['Attribute', 'Type', `Stability (${registry.otel.semconvVersion})`, 'Description', 'Use here'], otel.map((a) => [code(a.id), code(a.type), a.stability, cell(a.brief), cell(reuseNotes.get(a.id) ?? '')])));

  out.push('## Attribute groups', '');
  for (const g of registry.attributeGroups) {
    out.push(`### ${g.id}`, '', cell(g.brief), '');
    if (g.extends !== undefined) out.push(`Extends ${code(g.extends)}; attributes below are added or changed.`, '');
    out.push(...usageTable(ownUses(g, groups), byId, reuseNotes));
  }

  out.push('## Events', '');
  out.push('Every event is an OpenTelemetry LogRecord with this EventName, flat typed attributes, trace context when available and an empty or short non-sensitive body.', '');
  out.push(...table(['EventName', 'Family', 'Always retained', 'Description'], registry.events.map((e) => [`[${code(e.name)}](#${anchor(e.name)})`, e.family, e.alwaysRetain ? 'yes' : 'no', cell(e.brief)])));
  for (const e of registry.events) {
    out.push(`### ${e.name}`, '', cell(e.brief) + (e.note !== undefined ? ` ${cell(e.note)}` : ''), '');
    out.push(`Stability: ${e.stability}. Family: ${e.family}. Extends ${code(e.extends ?? 'nothing')}; event-specific attributes:`, '');
    out.push(...usageTable(ownUses(e, groups), byId, reuseNotes));
  }

  out.push('## Metrics', '');
  const dims = groups.get(METRIC_DIMENSIONS_GROUP)?.attributes.map((u) => code(u.id)) ?? [];
  out.push(`Client metrics are bounded-cardinality. The only allowed dimensions are ${dims.join(', ')}. Skill, package, release, repository, session and activation identities never appear on metric series; per-skill reporting is derived from events.`, '');
  out.push(...table(['Metric', 'Instrument', 'Unit', 'Stability', 'Dimensions', 'Description'], registry.metrics.map((m) => [code(m.name), m.instrument, code(m.unit), m.stability, m.attributes.map((u) => code(u.id)).sort().join(', '), cell(m.brief)])));

  out.push('## Spans', '');
  for (const s of registry.spans) {
    out.push(`### ${s.id}`, '', `Name ${code(s.nameTemplate)}, kind ${s.kind}, stability ${s.stability}. ${cell(s.brief)}${s.note !== undefined ? ` ${cell(s.note)}` : ''}`, '');
    out.push(...usageTable(s.attributes, byId, reuseNotes));
  }
  return out.join('\n');
}
