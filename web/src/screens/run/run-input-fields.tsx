import type { InputField, InputSchema } from '../../../../src/sdk/types';

type Values = Record<string, unknown>;

/** The fields held in the input text (a JSON object); none when it is not one yet. */
function valuesOf(text: string): Values {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Values) : {};
  } catch {
    return {};
  }
}

/**
 * What a typed field value becomes in the JSON: numbers as numbers when they read as one
 * (anything else is left as typed, for the server to explain), empty fields left out.
 */
function typed(field: InputField, raw: string | boolean): unknown {
  if (typeof raw === 'boolean' || raw === '') return raw === '' ? undefined : raw;
  if (field.type === 'integer' || field.type === 'number' || typeof field.enum?.[0] === 'number') {
    const number = Number(raw);
    return Number.isFinite(number) ? number : raw;
  }
  return raw;
}

function rangeHint(field: InputField): string | undefined {
  const { minimum: min, maximum: max } = field;
  if (min !== undefined && max !== undefined) return `From ${min.toLocaleString()} to ${max.toLocaleString()}.`;
  if (min !== undefined) return `At least ${min.toLocaleString()}.`;
  if (max !== undefined) return `At most ${max.toLocaleString()}.`;
  if (field.maxLength !== undefined) return `Up to ${field.maxLength.toLocaleString()} characters.`;
  return undefined;
}

function FieldControl({
  id,
  field,
  value,
  required,
  hintId,
  onChange,
}: {
  id: string;
  field: InputField;
  value: unknown;
  required: boolean;
  hintId: string | undefined;
  onChange: (raw: string | boolean) => void;
}) {
  const shown = value === undefined ? '' : String(value);
  if (field.type === 'boolean') {
    return <input id={id} type="checkbox" checked={value === true} onChange={(event) => onChange(event.currentTarget.checked)} />;
  }
  if (field.enum) {
    return (
      <select id={id} required={required} value={shown} onChange={(event) => onChange(event.currentTarget.value)}>
        <option value="">{required ? 'Choose…' : '(none)'}</option>
        {field.enum.map((choice) => (
          <option key={String(choice)} value={String(choice)}>
            {String(choice)}
          </option>
        ))}
      </select>
    );
  }
  const common = {
    id,
    required,
    'aria-describedby': hintId,
    value: shown,
    onInput: (event: { currentTarget: HTMLInputElement }) => onChange(event.currentTarget.value),
  };
  if (field.type === 'integer' || field.type === 'number') {
    const whole = field.type === 'integer';
    return (
      <input
        {...common}
        type="number"
        inputMode={whole ? 'numeric' : 'decimal'}
        step={whole ? 1 : 'any'}
        min={field.minimum}
        max={field.maximum}
      />
    );
  }
  return <input {...common} type="text" maxLength={field.maxLength} />;
}

/** One labelled control per field of an object input; the input text is their JSON. */
export function InputFields({
  schema,
  text,
  disabled,
  onChange,
}: {
  schema: InputSchema;
  text: string;
  disabled: boolean;
  onChange: (text: string) => void;
}) {
  const values = valuesOf(text);
  const required = new Set(schema.required ?? []);
  const set = (name: string, field: InputField, raw: string | boolean) => {
    const next: Values = { ...values, [name]: typed(field, raw) };
    onChange(JSON.stringify(next));
  };
  return (
    <fieldset class="input-fields" disabled={disabled}>
      <legend>Input</legend>
      {Object.entries(schema.properties ?? {}).map(([name, field]) => {
        const id = `skill-field-${name}`;
        const hint = [field.description, rangeHint(field)].filter(Boolean).join(' ');
        const hintId = hint ? `${id}-hint` : undefined;
        return (
          <div key={name} class={field.type === 'boolean' ? 'input-field input-field-check' : 'input-field'}>
            <label for={id}>
              {field.title ?? name}
              {!required.has(name) && <span class="hint"> (optional)</span>}
            </label>
            <FieldControl
              id={id}
              field={field}
              value={values[name]}
              required={required.has(name)}
              hintId={hintId}
              onChange={(raw) => set(name, field, raw)}
            />
            {hint && (
              <p id={hintId} class="hint">
                {hint}
              </p>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}
