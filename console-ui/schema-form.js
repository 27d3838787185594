// @ts-check
/**
 * A form generated from a JSON Schema (the 2020-12 subset tools use): one native control per
 * field, so the form is keyboard-usable and every control is labelled. What the form cannot render
 * faithfully (`$ref`, `oneOf` of objects, objects without `properties`...) is edited as raw JSON,
 * so that every schema can still be called.
 */
import { attachCompletions } from './completions.js';
import { append, clear, h, uid } from './dom.js';

/**
 * @typedef {Record<string, any>} Schema
 * @typedef {(name: string, value: string, allValues: Record<string, unknown>) => Promise<string[]>} Complete
 * @typedef {{ idPrefix: string, complete?: Complete, snapshot: () => Record<string, unknown> }} Context
 * @typedef {{
 *   element: HTMLElement,
 *   read: (problems: string[]) => unknown,
 *   write: (value: unknown) => void,
 *   focus: () => void,
 * }} Field
 * @typedef {{ name: string, label: string, path: string, required: boolean }} Place
 */

/** The value() of a form that does not hold a valid value: `problems` lists every reason. */
export class SchemaFormError extends Error {
  /** @param {string[]} problems */
  constructor(problems) {
    super(problems.join('\n'));
    this.name = 'SchemaFormError';
    /** @type {string[]} */
    this.problems = problems;
  }
}

/**
 * Builds a form for `schema`.
 *
 * @param {unknown} schema the JSON Schema (a tool's `inputSchema`, an elicitation's `requestedSchema`)
 * @param {{ idPrefix: string, complete?: Complete }} options `complete(name, value, allValues)` answers
 *   the suggestions of a string field (a `<datalist>`) as the person types
 * @returns {{ element: HTMLElement, value: () => unknown, setValue: (value: unknown) => void, focus: () => void }}
 */
export function createSchemaForm(schema, options) {
  const root = isObject(schema) ? schema : {};
  /** @type {Context} */
  const context = {
    idPrefix: options.idPrefix,
    complete: options.complete,
    snapshot: () => {
      const current = jsonMode ? tryParse(jsonArea.value) : rootField.read([]);
      return isObject(current) ? current : {};
    },
  };
  const rawRoot = !renderable(root) || !isObject(root.properties);
  const rootField = rawRoot
    ? jsonField(root, { name: '', label: 'Arguments (JSON)', path: 'Arguments (JSON)', required: false }, context)
    : objectFields(root, '', context);

  const problemsBox = h('div', { role: 'alert', class: 'schema-form-problems', hidden: true });
  const jsonId = uid(`${options.idPrefix}-json`);
  const jsonArea = h('textarea', { id: jsonId, class: 'schema-form-json', rows: 10 });
  jsonArea.spellcheck = false;
  const jsonView = h(
    'div',
    { class: 'schema-form-field', hidden: true },
    h('label', { for: jsonId }, 'Arguments (JSON)'),
    jsonArea,
  );
  let jsonMode = false;
  const toggleId = uid(`${options.idPrefix}-as-json`);
  const toggle = h('input', {
    type: 'checkbox',
    id: toggleId,
    onChange: () => {
      if (toggle.checked) {
        jsonArea.value = JSON.stringify(rootField.read([]) ?? {}, null, 2);
        showProblems([]);
        jsonMode = true;
      } else {
        const parsed = parseJson(jsonArea.value, 'Arguments (JSON)');
        if (parsed.problem) {
          // The text stays where the person can fix it.
          toggle.checked = true;
          showProblems([parsed.problem]);
          return;
        }
        rootField.write(parsed.value);
        showProblems([]);
        jsonMode = false;
      }
      rootField.element.hidden = jsonMode;
      jsonView.hidden = !jsonMode;
    },
  });
  const element = h(
    'div',
    { class: 'schema-form' },
    rawRoot ? null : h('div', { class: 'schema-form-toggle' }, toggle, h('label', { for: toggleId }, 'Edit as JSON')),
    rootField.element,
    rawRoot ? null : jsonView,
    problemsBox,
  );

  /** @param {string[]} problems */
  function showProblems(problems) {
    clear(problemsBox);
    problemsBox.hidden = problems.length === 0;
    if (problems.length > 0) {
      append(problemsBox, [h('ul', {}, ...problems.map((problem) => h('li', {}, problem)))]);
    }
  }

  return {
    element,
    value() {
      /** @type {string[]} */
      const problems = [];
      let result;
      if (jsonMode) {
        const parsed = parseJson(jsonArea.value, 'Arguments (JSON)');
        if (parsed.problem) {
          problems.push(parsed.problem);
        } else if (!isObject(parsed.value)) {
          problems.push('Arguments (JSON) must be a JSON object');
        }
        result = parsed.value;
      } else {
        result = rootField.read(problems);
        if (result === undefined) {
          result = {};
        }
      }
      showProblems(problems);
      if (problems.length > 0) {
        throw new SchemaFormError(problems);
      }
      return result;
    },
    setValue(value) {
      if (jsonMode) {
        jsonArea.value = JSON.stringify(value ?? {}, null, 2);
      } else {
        rootField.write(value);
      }
      showProblems([]);
    },
    focus() {
      if (jsonMode) {
        jsonArea.focus();
      } else {
        rootField.focus();
      }
    },
  };
}

/**
 * The fields of an object's properties, without a fieldset (the top level of the form) or inside one.
 *
 * @param {Schema} schema
 * @param {string} path
 * @param {Context} context
 * @param {HTMLElement} [container]
 * @returns {Field}
 */
function objectFields(schema, path, context, container = h('div', { class: 'schema-form-fields' })) {
  const properties = /** @type {Record<string, unknown>} */ (schema.properties);
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  /** @type {Array<[string, Field]>} */
  const fields = Object.entries(properties).map(([name, child]) => {
    const childSchema = isObject(child) ? child : {};
    const label = typeof childSchema.title === 'string' ? childSchema.title : name;
    const place = { name, label, path: path ? `${path}.${label}` : label, required: required.has(name) };
    return [name, fieldFor(childSchema, place, context)];
  });
  if (fields.length === 0) {
    append(container, [h('p', { class: 'schema-form-empty' }, 'No arguments.')]);
  }
  append(
    container,
    fields.map(([, field]) => field.element),
  );
  // Keys the fields do not show (additionalProperties, a value pasted as JSON) are kept as they were.
  /** @type {Record<string, unknown>} */
  let extras = {};
  return {
    element: container,
    read(problems) {
      /** @type {Record<string, unknown>} */
      const result = { ...extras };
      for (const [name, field] of fields) {
        const value = field.read(problems);
        if (value !== undefined) {
          result[name] = value;
        }
      }
      return result;
    },
    write(value) {
      const object = isObject(value) ? value : {};
      extras = Object.fromEntries(Object.entries(object).filter(([key]) => !(key in properties)));
      for (const [name, field] of fields) {
        field.write(object[name]);
      }
    },
    focus() {
      fields[0]?.[1].focus();
    },
  };
}

/**
 * The field of one schema: the kind of control its type asks for, or the JSON editor.
 *
 * @param {Schema} schema
 * @param {Place} place
 * @param {Context} context
 * @returns {Field}
 */
function fieldFor(schema, place, context) {
  if (!renderable(schema)) {
    return jsonField(schema, place, context);
  }
  const choices = choicesOf(schema);
  if (choices) {
    return selectField(schema, choices, place, context);
  }
  const type = baseType(schema);
  switch (type) {
    case 'string':
      return inputField(schema, place, context, 'string');
    case 'number':
    case 'integer':
      return inputField(schema, place, context, type);
    case 'boolean':
      return booleanField(schema, place, context);
    case 'array':
      return isObject(schema.items) && renderable(schema.items) && !Array.isArray(schema.prefixItems)
        ? arrayField(schema, place, context)
        : jsonField(schema, place, context);
    case 'object':
      return isObject(schema.properties) && !isObject(schema.patternProperties)
        ? objectField(schema, place, context)
        : jsonField(schema, place, context);
    default:
      return jsonField(schema, place, context);
  }
}

/**
 * Whether the form can show this schema with its own controls (the rest is raw JSON).
 *
 * @param {Schema} schema
 */
function renderable(schema) {
  if ('$ref' in schema || 'allOf' in schema || 'not' in schema || 'if' in schema) {
    return false;
  }
  if (('oneOf' in schema || 'anyOf' in schema) && !choicesOf(schema)) {
    return false;
  }
  return choicesOf(schema) !== undefined || baseType(schema) !== undefined;
}

/**
 * The one non-null type of a schema (`['string', 'null']` is a string), or undefined when there is
 * none or several.
 *
 * @param {Schema} schema
 * @returns {string | undefined}
 */
function baseType(schema) {
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  const concrete = types.filter((type) => type !== 'null');
  if (concrete.length === 1 && typeof concrete[0] === 'string') {
    return concrete[0];
  }
  if (types.length === 0 && isObject(schema.properties)) {
    return 'object';
  }
  return undefined;
}

/** @param {Schema} schema */
function nullable(schema) {
  return (Array.isArray(schema.type) && schema.type.includes('null')) || schema.nullable === true;
}

/**
 * The closed set of values of an `enum`, or of a `oneOf` / `anyOf` whose members are all `const`s.
 *
 * @param {Schema} schema
 * @returns {Array<{ value: unknown, label: string }> | undefined}
 */
function choicesOf(schema) {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, index) => ({
      value,
      label: typeof names[index] === 'string' ? names[index] : display(value),
    }));
  }
  const members = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (members && members.length > 0 && members.every((member) => isObject(member) && 'const' in member)) {
    return members.map((member) => ({
      value: member.const,
      label: typeof member.title === 'string' ? member.title : display(member.const),
    }));
  }
  return undefined;
}

/**
 * The label and help text of a control, the required mark included.
 *
 * @param {Schema} schema
 * @param {Place} place
 * @param {string} id the control's id
 */
function labelParts(schema, place, id) {
  const helpId = typeof schema.description === 'string' ? `${id}-help` : undefined;
  return {
    // The mark is outside the label: the label's text is exactly the field's name or title.
    label: h('span', { class: 'schema-form-label' }, h('label', { for: id }, place.label), requiredMark(place)),
    help: helpId ? h('p', { id: helpId, class: 'schema-form-help' }, schema.description) : null,
    helpId,
  };
}

/** @param {Place} place */
function requiredMark(place) {
  // The mark is for the eyes; the control's `required` says it to assistive technology.
  return place.required ? h('span', { class: 'schema-form-required', 'aria-hidden': 'true' }, ' *') : null;
}

/**
 * A text or number input.
 *
 * @param {Schema} schema
 * @param {Place} place
 * @param {Context} context
 * @param {'string' | 'number' | 'integer'} type
 * @returns {Field}
 */
function inputField(schema, place, context, type) {
  const id = uid(context.idPrefix);
  const { label, help, helpId } = labelParts(schema, place, id);
  const input = h('input', {
    id,
    name: place.name,
    type: type === 'string' ? inputTypeOf(schema.format) : 'number',
    required: place.required,
    'aria-describedby': helpId,
  });
  if (type === 'string') {
    setNumberAttribute(input, 'minlength', schema.minLength);
    setNumberAttribute(input, 'maxlength', schema.maxLength);
    if (typeof schema.pattern === 'string') {
      input.setAttribute('pattern', schema.pattern);
    }
    if (schema.format === 'date-time') {
      // datetime-local drops the offset, so an RFC 3339 date-time is typed as text.
      input.placeholder = '2026-01-31T09:30:00Z';
    }
  } else {
    input.step = type === 'integer' ? '1' : 'any';
    setNumberAttribute(input, 'min', schema.minimum);
    setNumberAttribute(input, 'max', schema.maximum);
  }
  const wrapper = h('div', { class: 'schema-form-field' }, label, input, help);
  if (type === 'string' && context.complete) {
    const complete = /** @type {Complete} */ (context.complete);
    wrapper.append(attachCompletions(input, (value) => complete(place.name, value, context.snapshot())));
  }
  const field = {
    element: wrapper,
    /** @param {string[]} problems */
    read(problems) {
      const text = input.value;
      const bad = type !== 'string' && input.validity.badInput;
      if (text === '' && !bad) {
        if (place.required && nullable(schema)) {
          return null;
        }
        return flag(input, problems, place.required ? `${place.path} is required` : undefined);
      }
      if (type === 'string') {
        return flag(input, problems, undefined, text);
      }
      const number = Number(text);
      if (bad || text.trim() === '' || !Number.isFinite(number)) {
        return flag(input, problems, `${place.path} must be a number`);
      }
      if (type === 'integer' && !Number.isInteger(number)) {
        return flag(input, problems, `${place.path} must be an integer`);
      }
      return flag(input, problems, undefined, number);
    },
    /** @param {unknown} value */
    write(value) {
      input.value = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
    },
    focus: () => input.focus(),
  };
  field.write(schema.default);
  return field;
}

/**
 * Marks a control invalid (or valid again) and records the problem; returns the value read.
 *
 * @param {HTMLElement} control
 * @param {string[]} problems
 * @param {string | undefined} problem
 * @param {unknown} [value]
 * @returns {unknown}
 */
function flag(control, problems, problem, value) {
  if (problem) {
    problems.push(problem);
    control.setAttribute('aria-invalid', 'true');
    return undefined;
  }
  control.removeAttribute('aria-invalid');
  return value;
}

/**
 * @param {unknown} format
 * @returns {string}
 */
function inputTypeOf(format) {
  switch (format) {
    case 'date':
      return 'date';
    case 'email':
      return 'email';
    case 'uri':
    case 'url':
      return 'url';
    default:
      return 'text';
  }
}

/**
 * @param {HTMLElement} element
 * @param {string} name
 * @param {unknown} value
 */
function setNumberAttribute(element, name, value) {
  if (typeof value === 'number' && Number.isFinite(value)) {
    element.setAttribute(name, String(value));
  }
}

/**
 * A `<select>` of an enum or of `const` choices.
 *
 * @param {Schema} schema
 * @param {Array<{ value: unknown, label: string }>} choices
 * @param {Place} place
 * @param {Context} context
 * @returns {Field}
 */
function selectField(schema, choices, place, context) {
  const id = uid(context.idPrefix);
  const { label, help, helpId } = labelParts(schema, place, id);
  const select = h(
    'select',
    { id, name: place.name, required: place.required, 'aria-describedby': helpId },
    // An empty first option: an optional field can be left out, a required one must be chosen.
    h('option', { value: '' }, place.required ? 'Choose…' : '(none)'),
    ...choices.map((choice, index) => h('option', { value: String(index) }, choice.label)),
  );
  const field = {
    element: h('div', { class: 'schema-form-field' }, label, select, help),
    /** @param {string[]} problems */
    read(problems) {
      if (select.value === '') {
        if (place.required && nullable(schema)) {
          return null;
        }
        return flag(select, problems, place.required ? `${place.path} is required` : undefined);
      }
      return flag(select, problems, undefined, choices[Number(select.value)]?.value);
    },
    /** @param {unknown} value */
    write(value) {
      const index = choices.findIndex((choice) => sameJson(choice.value, value));
      select.value = index === -1 ? '' : String(index);
    },
    focus: () => select.focus(),
  };
  field.write(schema.default);
  return field;
}

/**
 * A checkbox. A required boolean is always sent (false when unticked); an optional one is sent
 * when ticked, or as false when unticking it departs from a default of true.
 *
 * @param {Schema} schema
 * @param {Place} place
 * @param {Context} context
 * @returns {Field}
 */
function booleanField(schema, place, context) {
  const id = uid(context.idPrefix);
  const { help, helpId } = labelParts(schema, place, id);
  const box = h('input', { id, name: place.name, type: 'checkbox', 'aria-describedby': helpId });
  const field = {
    element: h(
      'div',
      { class: 'schema-form-field schema-form-check' },
      box,
      h('label', { for: id }, place.label),
      requiredMark(place),
      help,
    ),
    read() {
      if (box.checked) {
        return true;
      }
      return place.required || schema.default === true ? false : undefined;
    },
    /** @param {unknown} value */
    write(value) {
      box.checked = value === true;
    },
    focus: () => box.focus(),
  };
  field.write(schema.default);
  return field;
}

/**
 * A list of items of one schema, with "Add <name>" and "Remove <name> <n>".
 *
 * @param {Schema} schema
 * @param {Place} place
 * @param {Context} context
 * @returns {Field}
 */
function arrayField(schema, place, context) {
  const itemSchema = /** @type {Schema} */ (schema.items);
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const legendId = uid('array');
  const { help, helpId } = labelParts(schema, place, legendId);
  const itemsBox = h('div', { class: 'schema-form-items' });
  /** @type {Field[]} */
  let items = [];
  const addButton = h('button', { type: 'button', onClick: () => add(undefined, true) }, `Add ${place.label}`);
  const fieldset = h(
    'fieldset',
    { class: 'schema-form-array', 'aria-describedby': helpId },
    h('legend', { id: legendId }, place.label, requiredMark(place)),
    help,
    itemsBox,
    addButton,
  );

  /**
   * @param {unknown} value
   * @param {boolean} [focus]
   */
  function add(value, focus = false) {
    const index = items.length + 1;
    const itemPlace = {
      name: place.name,
      label: `${place.label} ${index}`,
      path: `${place.path} ${index}`,
      required: true,
    };
    const item = fieldFor(itemSchema, itemPlace, context);
    if (value !== undefined) {
      item.write(value);
    }
    items.push(item);
    const remove = h(
      'button',
      { type: 'button', class: 'schema-form-remove', onClick: () => removeAt(index - 1) },
      `Remove ${place.label} ${index}`,
    );
    append(itemsBox, [h('div', { class: 'schema-form-item' }, item.element, remove)]);
    if (focus) {
      item.focus();
    }
  }

  /** @param {number} index */
  function removeAt(index) {
    // The items are rebuilt so that their labels stay numbered 1..n.
    const values = items.map((item) => item.read([]));
    values.splice(index, 1);
    rebuild(values);
    (items[Math.min(index, items.length - 1)] ?? { focus: () => addButton.focus() }).focus();
  }

  /** @param {unknown[]} values */
  function rebuild(values) {
    clear(itemsBox);
    items = [];
    for (const value of values) {
      add(value);
    }
    while (items.length < minItems) {
      add(undefined);
    }
  }

  rebuild(Array.isArray(schema.default) ? schema.default : []);
  return {
    element: fieldset,
    read(problems) {
      const values = items.map((item) => item.read(problems));
      if (values.length === 0) {
        return place.required ? [] : undefined;
      }
      if (values.length < minItems) {
        problems.push(`${place.path} needs at least ${minItems} items`);
      }
      return values;
    },
    write(value) {
      rebuild(Array.isArray(value) ? value : []);
    },
    focus() {
      (items[0] ?? { focus: () => addButton.focus() }).focus();
    },
  };
}

/**
 * A nested object: its fields in a fieldset whose legend names it. An optional object left
 * entirely empty is left out, and its own required fields are then not asked for.
 *
 * @param {Schema} schema
 * @param {Place} place
 * @param {Context} context
 * @returns {Field}
 */
function objectField(schema, place, context) {
  const legendId = uid('object');
  const { help, helpId } = labelParts(schema, place, legendId);
  const fieldset = h(
    'fieldset',
    { class: 'schema-form-object', 'aria-describedby': helpId },
    h('legend', { id: legendId }, place.label, requiredMark(place)),
    help,
  );
  const inner = objectFields(schema, place.path, context, fieldset);
  return {
    element: fieldset,
    read(problems) {
      /** @type {string[]} */
      const own = [];
      const value = /** @type {Record<string, unknown>} */ (inner.read(own));
      if (!place.required && Object.keys(value).length === 0) {
        return undefined;
      }
      problems.push(...own);
      return value;
    },
    write: (value) => inner.write(value),
    focus: () => inner.focus(),
  };
}

/**
 * The fallback: a textarea holding the JSON of that subtree.
 *
 * @param {Schema} schema
 * @param {Place} place
 * @param {Context} context
 * @returns {Field}
 */
function jsonField(schema, place, context) {
  const id = uid(context.idPrefix);
  const { label, help, helpId } = labelParts(schema, place, id);
  const area = h('textarea', {
    id,
    name: place.name,
    class: 'schema-form-json',
    rows: 4,
    placeholder: '{}',
    required: place.required,
    'aria-describedby': helpId,
  });
  area.spellcheck = false;
  const field = {
    element: h(
      'div',
      { class: 'schema-form-field' },
      label,
      h('span', { class: 'schema-form-hint' }, 'JSON'),
      area,
      help,
    ),
    /** @param {string[]} problems */
    read(problems) {
      if (area.value.trim() === '') {
        return flag(area, problems, place.required ? `${place.path} is required` : undefined);
      }
      const parsed = parseJson(area.value, place.path);
      return flag(area, problems, parsed.problem, parsed.value);
    },
    /** @param {unknown} value */
    write(value) {
      area.value = value === undefined ? '' : JSON.stringify(value, null, 2);
    },
    focus: () => area.focus(),
  };
  field.write(schema.default);
  return field;
}

/**
 * @param {string} text
 * @param {string} what the field, named in the problem
 * @returns {{ value?: unknown, problem?: string }}
 */
function parseJson(text, what) {
  try {
    return { value: JSON.parse(text.trim() === '' ? '{}' : text) };
  } catch (error) {
    return { problem: `${what}: invalid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** @param {string} text */
function tryParse(text) {
  return parseJson(text, '').value;
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, any>}
 */
function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** @param {unknown} value */
function display(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * @param {unknown} a
 * @param {unknown} b
 */
function sameJson(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}
