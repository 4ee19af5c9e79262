// What every page shares: the API, elements, small boards, the opponents list.
import { Chessground } from '/assets/chessground.min.js';

export const $ = (id) => document.getElementById(id);

export async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(json.error || res.statusText);
  return json;
}

// An element with attributes (`text` sets its text) and children.
export function el(tag, attrs = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null) continue;
    if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

// A board that only shows: `fen`, the squares of `marked` highlighted, arrows `shapes`.
export function smallBoard(container, fen, { marked = [], shapes = [], orientation = 'white' } = {}) {
  const board = el('div', { class: 'board small brown cburnett' });
  container.append(board);
  // Drawn once the board is in the page (its arrows need its size), unless it has gone.
  requestAnimationFrame(() => board.isConnected && board.offsetWidth > 0 && Chessground(board, {
    fen,
    orientation,
    viewOnly: true,
    coordinates: false,
    highlight: { custom: new Map(marked.map((sq) => [sq, 'differs'])) },
    drawable: { enabled: false, autoShapes: shapes },
  }));
  return board;
}

// "White (1500) – Black (1480)".
export function players(g) {
  const one = (name, elo) => `${name || '?'}${elo ? ` (${elo})` : ''}`;
  return `${one(g.white, g.white_elo)} – ${one(g.black, g.black_elo)}`;
}

// A precedent: its small board (the position as it stood in its game, the squares that differ
// from the board marked, its move drawn), who played it where, and links to open its game at
// that move. `side`: the colour to move on the board; a case of the other colour is shown
// turned round, as it was compared.
export function precedentItem(c, { board = true, orientation = 'white', side } = {}) {
  const li = el('li', { class: 'precedent' });
  const turned = side && c.mover !== side;
  if (board && c.fen) {
    const shapes = c.played ? [{ orig: c.played.slice(0, 2), dest: c.played.slice(2, 4), brush: 'green' }] : [];
    const flip = orientation === 'white' ? 'black' : 'white';
    smallBoard(li, c.fen, { marked: c.differs || [], shapes, orientation: turned ? flip : orientation });
  }
  const when = [c.event, c.date].filter(Boolean).join(', ');
  const how = c.exact ? 'this very position' : `similarity ${c.similarity.toFixed(2)}, ${c.differs ? c.differs.length : '?'} squares differ`;
  const played = c.played || c.move;
  const here = c.adapted !== c.move ? ` (here ${c.adapted})` : turned ? ` (here ${c.adapted}, colours turned round)` : '';
  const text = `${players(c)}${when ? `, ${when}` : ''}: move ${Math.floor(c.ply / 2) + 1}, ${c.mover} played ${played}${here}; ${how}`;
  const links = el('span', { class: 'links' }, [
    el('a', { href: `#game/${c.base}/${c.game_index}/${c.ply}`, text: 'open the game' }),
  ]);
  if (c.site && c.site.startsWith('https://')) {
    links.append(' · ', el('a', { href: `${c.site}#${c.ply + 1}`, target: '_blank', rel: 'noopener', text: 'on Lichess' }));
  }
  li.append(el('div', { class: 'caption' }, [el('span', { text }), el('br'), links]));
  return li;
}

// Fills every `select.opponents` with the default style, the levels and the player files.
export async function loadOpponents() {
  const o = await api('GET', '/api/opponents');
  for (const select of document.querySelectorAll('select.opponents')) {
    select.replaceChildren();
    const add = (value, text) => select.append(el('option', { value: JSON.stringify(value), text }));
    add({ kind: 'default' }, 'The default style');
    for (const elo of o.levels) add({ kind: 'level', elo }, `Level ${elo}`);
    for (const p of o.players) add({ kind: 'player', id: p.id }, `Player: ${p.name}`);
    const l1400 = [...select.options].find((x) => x.textContent === 'Level 1400');
    if (l1400) l1400.selected = true;
  }
  return o;
}

// Reads a chosen file into a text area.
export function fileInto(input, area) {
  input.addEventListener('change', async () => {
    const f = input.files[0];
    if (f) area.value = await f.text();
  });
}
