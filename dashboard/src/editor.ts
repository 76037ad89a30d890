/**
 * The two query editors (CodeMirror 6): SQL with tsdb's tables and columns of the chosen database
 * for completion, and PromQL completing metric names, labels and values from tsdb's own Prometheus
 * API (`/v1/prometheus/api/v1/…`, with the dashboard's credentials). Ctrl/Cmd-Enter runs the query.
 */
import { EditorView, basicSetup } from 'codemirror';
import { Compartment, Prec } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { sql, MySQL, type SQLNamespace } from '@codemirror/lang-sql';
import { PromQLExtension } from '@prometheus-io/codemirror-promql';
import { apiFetch } from './api.js';

export interface QueryEditor {
  readonly view: EditorView;
  text(): string;
  setText(text: string): void;
}

function create(parent: HTMLElement, doc: string, language: import('@codemirror/state').Extension, run: () => void): QueryEditor {
  const view = new EditorView({
    doc,
    parent,
    extensions: [
      basicSetup,
      language,
      Prec.highest(keymap.of([{ key: 'Mod-Enter', run: () => (run(), true) }])),
      EditorView.lineWrapping,
    ],
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    setText: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
  };
}

const sqlLanguage = new Compartment();

export function sqlEditor(parent: HTMLElement, doc: string, run: () => void): QueryEditor & { setSchema(schema: SQLNamespace): void } {
  const editor = create(parent, doc, sqlLanguage.of(sql({ dialect: MySQL, upperCaseKeywords: true })), run);
  return {
    ...editor,
    setSchema: (schema) => editor.view.dispatch({ effects: sqlLanguage.reconfigure(sql({ dialect: MySQL, upperCaseKeywords: true, schema })) }),
  };
}

/** `db` is read at each completion request: the metrics of the database chosen then. */
export function promqlEditor(parent: HTMLElement, doc: string, db: () => string, run: () => void): QueryEditor {
  const promql = new PromQLExtension().setComplete({
    remote: {
      url: '/v1/prometheus',
      httpMethod: 'GET',
      fetchFn: (input, init) => {
        const url = new URL(String(input), location.origin);
        url.searchParams.set('db', db());
        return apiFetch(url.pathname + url.search, init ?? {});
      },
    },
  });
  return create(parent, doc, promql.asExtension(), run);
}
