/**
 * `{{name}}` placeholders of the local provider's replies and tool arguments. A path reads into an
 * object (`{{toolOutput.items.0.name}}`); objects render as JSON, a missing value as nothing.
 */
export type TemplateValues = Record<string, unknown>;

function lookup(values: TemplateValues, path: string): unknown {
  let current: unknown = values;
  for (const part of path.split('.')) {
    if (current === null || current === undefined) return undefined;
    if (typeof current === 'string' && part !== '') {
      // A tool output given as JSON text can still be read into.
      try {
        current = JSON.parse(current) as unknown;
      } catch {
        return undefined;
      }
    }
    if (typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function show(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function render(template: string, values: TemplateValues): string {
  return template.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_m, path: string) =>
    show(lookup(values, path)),
  );
}

/** Renders every string inside tool arguments; a string that is only one placeholder keeps the value's type. */
export function renderDeep(value: unknown, values: TemplateValues): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}$/.exec(value);
    if (whole) return lookup(values, whole[1]!) ?? '';
    return render(value, values);
  }
  if (Array.isArray(value)) return value.map((v) => renderDeep(v, values));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderDeep(v, values)]));
  }
  return value;
}
