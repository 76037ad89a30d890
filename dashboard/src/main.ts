/**
 * The tsdb dashboard: a header (pages, database, user) and four pages chosen by the URL fragment
 * (`#query`, `#browse`, `#ingest`, `#status`). The login form appears whenever the API answers
 * 401 (see api.ts).
 */
import './style.css';
import { clearCredentials, currentUser, databases, setCredentials, setLoginPrompt } from './api.js';
import { browsePage } from './browse-page.js';
import { fill, h } from './dom.js';
import { ingestPage } from './ingest-page.js';
import { queryPage } from './query-page.js';
import { statusPage } from './status-page.js';

const DB_KEY = 'tsdb.dashboard.db';
type PageName = 'query' | 'browse' | 'ingest' | 'status';

let database = localStorage.getItem(DB_KEY) ?? 'public';
const dbSelect = h('select', { 'aria-label': 'database', 'data-testid': 'db-select', onchange: () => setDatabase(dbSelect.value) });
const userBox = h('span', { class: 'user', 'data-testid': 'user' });

const query = queryPage(() => database);
const browse = browsePage((sql, db) => {
  setDatabase(db);
  location.hash = '#query';
  query.load('sql', sql, true);
});
const ingest = ingestPage();
const status = statusPage();
const pages: Record<PageName, { element: HTMLElement; show?: () => void }> = {
  // Tables may have been created since: the SQL completion's schema is read again.
  query: { element: query.element, show: () => query.setDatabase(database) },
  browse: { element: browse.element, show: () => browse.refresh() },
  ingest: { element: ingest.element, show: () => void loadDatabases() },
  status: { element: status.element, show: () => status.refresh() },
};

function setDatabase(db: string): void {
  database = db;
  localStorage.setItem(DB_KEY, db);
  dbSelect.value = db;
  query.setDatabase(db);
}

async function loadDatabases(): Promise<void> {
  const dbs = await databases();
  if (!dbs.includes(database)) database = dbs.includes('public') ? 'public' : (dbs[0] ?? 'public');
  fill(dbSelect, dbs.map((d) => h('option', { value: d, selected: d === database }, d)));
  ingest.setDatabases(dbs, database);
  query.setDatabase(database);
  showUser();
}

function showUser(): void {
  const user = currentUser();
  fill(userBox, user === undefined ? null : [`${user} `, h('button', { class: 'link', 'data-testid': 'logout', onclick: logout }, 'sign out')]);
}

function logout(): void {
  clearCredentials();
  showUser();
  location.reload();
}

/** The login form: resolves when the user has entered credentials (checked by the retried call). */
function login(message: string): Promise<void> {
  return new Promise((resolve) => {
    const user = h('input', { name: 'username', autocomplete: 'username', required: true, value: currentUser() ?? '', 'data-testid': 'login-user' });
    const password = h('input', { name: 'password', type: 'password', autocomplete: 'current-password', 'data-testid': 'login-password' });
    const overlay = h(
      'div',
      { class: 'overlay' },
      h(
        'form',
        {
          class: 'login',
          'data-testid': 'login',
          onsubmit: (e: Event) => {
            e.preventDefault();
            setCredentials(user.value, password.value);
            overlay.remove();
            showUser();
            resolve();
          },
        },
        h('h2', {}, 'Sign in to tsdb'),
        h('div', { class: 'login-message', role: 'alert' }, message),
        h('label', {}, 'User', user),
        h('label', {}, 'Password', password),
        h('button', { class: 'primary', type: 'submit', 'data-testid': 'login-submit' }, 'Sign in'),
      ),
    );
    document.body.append(overlay);
    (user.value === '' ? user : password).focus();
  });
}

const nav = h('nav', {});
const main = h('main', {});

function route(): void {
  const name = (location.hash.slice(1) || 'query') as PageName;
  const page = pages[name] ?? pages.query;
  for (const a of nav.querySelectorAll('a')) a.classList.toggle('active', a.getAttribute('href') === `#${name}`);
  fill(main, page.element);
  page.show?.();
}

setLoginPrompt(login);
fill(nav, (['query', 'browse', 'ingest', 'status'] as const).map((p) => h('a', { href: `#${p}`, 'data-testid': `nav-${p}` }, p[0]!.toUpperCase() + p.slice(1))));
document.body.append(
  h('header', {}, h('a', { class: 'brand', href: '#query' }, 'tsdb'), nav, h('span', { class: 'spacer' }), h('label', { class: 'db' }, 'Database ', dbSelect), userBox),
  main,
);
window.addEventListener('hashchange', route);
route();
void loadDatabases().catch((err: unknown) => console.warn('databases:', err));
