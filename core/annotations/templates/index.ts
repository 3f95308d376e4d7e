import { skitEvidenceTemplate } from '../skit-evidence/template.js';
import type { TemplateSpec } from '../template/spec.js';
import { architectTemplate } from './architect.js';
import { builderTemplate } from './builder.js';
import { contextTemplate } from './context.js';
import { contractTemplate } from './contract.js';
import { decomposedTemplate } from './decomposed.js';
import { investigatorTemplate } from './investigator.js';
import { reviewerTemplate } from './reviewer.js';
import { trajectoryTemplate } from './trajectory.js';

/** The template of every block type with structured fields, keyed by TYPE. */
export const TEMPLATES: Readonly<Record<string, TemplateSpec>> = Object.freeze({
  INVESTIGATOR: investigatorTemplate,
  DECOMPOSED: decomposedTemplate,
  CONTRACT: contractTemplate,
  CONTEXT: contextTemplate,
  ARCHITECT: architectTemplate,
  BUILDER: builderTemplate,
  REVIEWER: reviewerTemplate,
  TRAJECTORY: trajectoryTemplate,
  SKIT_EVIDENCE: skitEvidenceTemplate,
});

/** The template for `type`, or undefined when the type has no structured body. */
export function templateFor(type: string): TemplateSpec | undefined {
  return Object.prototype.hasOwnProperty.call(TEMPLATES, type) ? TEMPLATES[type] : undefined;
}
