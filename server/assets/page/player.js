// The player page: a player file's dossier, its openings as a tree to click through, its
// errors beside its band, its clock use, and where it departs from the crowd, each a board.
import { Chessground } from '/assets/chessground.min.js';
import { $, api, el, smallBoard } from '/assets/ui.js';

const board = Chessground($('tree-board'), { viewOnly: true, coordinates: true });
let dossier = null;
let colour = 'white';
let path = '';         // the line shown (UCI, space-separated; '' = the start)

function say(text) { $('player-status').textContent = text; }
function fail(e) { $('player-error').textContent = String(e.message || e); say(''); }

export function fillPlayers(opponents) {
  const select = $('player-select');
  select.replaceChildren(...opponents.players.map((p) => el('option', { value: p.id, text: p.name })));
  if (!opponents.players.length) {
    select.append(el('option', { value: '', text: 'none loaded: serve --casebase PLAYER.cb' }));
  }
}

export async function open(id) {
  $('player-error').textContent = '';
  if (id === undefined || id === '') id = $('player-select').value;
  if (id === '') { fail('No player file loaded: start the server with --casebase PLAYER.cb.'); return; }
  $('player-select').value = id;
  say('Reading their games… (the first time, each position of their repertoire is put to the model)');
  try {
    dossier = await api('GET', `/api/players/${id}/dossier`);
    window.precedentDossier = dossier; // for the browser test
    render();
    say('');
  } catch (e) { fail(e); }
}

function pct(x) { return `${(100 * x).toFixed(1)} %`; }

function render() {
  const d = dossier.dossier;
  const p = d.profile;
  $('player-dossier').hidden = false;
  board.redrawAll();
  $('player-name').textContent = p.name;
  const rating = p.rating ? `rated ${p.rating.median} (median of ${p.rating.games} rated games)` : 'no rating';
  // Each level their bot plays at, with the clocks that set it.
  const byLevel = new Map();
  for (const s of d.strengths) {
    const key = `level ${s.level ?? '?'} (their ${s.from || 'overall'} rating ${s.rating})`;
    byLevel.set(key, [...(byLevel.get(key) || []), s.clock || 'no clock']);
  }
  const strengths = [...byLevel].map(([k, clocks]) => (byLevel.size > 1 ? `${k} under ${clocks.join(', ')}` : k)).join('; ');
  $('player-facts').textContent = `${p.games} games (${p.white_games} as White, ${p.black_games} as Black), score ${pct(p.points / Math.max(p.decided_games, 1))}, ${rating}. Their bot plays at ${strengths || 'the default style'}.`;
  path = '';
  tree();
  errors(d);
  clocks(p);
  departures(d);
  $('player-chart').innerHTML = dossier.chart || '';
}

// The opening tree at `path`: the position, and the moves played from it.
function tree() {
  const nodes = colour === 'white' ? dossier.white_tree : dossier.black_tree;
  const depth = path ? path.split(' ').length : 0;
  const here = nodes.find((n) => n.line === path);
  board.set({ fen: here ? here.fen : 'start', orientation: colour });
  const children = nodes
    .filter((n) => n.line.split(' ').length === depth + 1 && (depth === 0 || n.line.startsWith(`${path} `)))
    .sort((a, b) => b.games - a.games);
  const crumbs = $('tree-path');
  crumbs.replaceChildren(link('Start', ''));
  let prefix = '';
  for (const m of path ? path.split(' ') : []) {
    prefix = prefix ? `${prefix} ${m}` : m;
    const n = nodes.find((x) => x.line === prefix);
    crumbs.append(' ', link(n ? n.san : m, prefix));
  }
  const body = $('tree-moves').querySelector('tbody');
  body.replaceChildren(...children.map((n) => el('tr', {}, [
    el('td', {}, [link(n.san, n.line)]),
    el('td', { text: n.games }),
    el('td', { text: pct(n.score) }),
  ])));
  if (!children.length) body.append(el('tr', {}, [el('td', { colspan: 3, text: 'No move played here twice.' })]));
}

function link(text, line) {
  const a = el('a', { href: '#player', text });
  a.addEventListener('click', (ev) => { ev.preventDefault(); path = line; tree(); });
  return a;
}

function errors(d) {
  const t = $('player-errors');
  t.replaceChildren();
  const j = d.profile.judged;
  if (!j) {
    t.append(el('tr', {}, [el('td', { text: 'Not judged: build the file with --judge to see their errors.' })]));
    return;
  }
  t.append(el('tr', {}, ['', 'Moves judged', 'Blunders', 'Mean loss'].map((h) => el('th', { text: h }))));
  t.append(el('tr', {}, ['All', j.positions, pct(j.blunder_rate), `${j.mean_loss.toFixed(0)} cp`].map((x) => el('td', { text: x }))));
  for (const ph of j.phases) {
    t.append(el('tr', {}, [ph.phase, ph.positions, pct(ph.blunder_rate), `${ph.mean_loss.toFixed(0)} cp`].map((x) => el('td', { text: x }))));
  }
  if (d.band_blunders) {
    const [band, rate] = d.band_blunders;
    t.append(el('tr', {}, [`Lichess rapid ${band}`, '', pct(rate), ''].map((x) => el('td', { text: x }))));
  }
}

function clocks(p) {
  const t = $('player-clocks');
  t.replaceChildren();
  if (!p.clocks.length) {
    t.append(el('tr', {}, [el('td', { text: 'Their games have no clocks.' })]));
    return;
  }
  const bands = ['moves 1-10', '11-25', '26-40', '41+'];
  t.append(el('tr', {}, ['Control', 'Games', ...bands.map((b) => `${b} (median s)`)].map((h) => el('th', { text: h }))));
  for (const c of p.clocks) {
    t.append(el('tr', {}, [c.control, c.games, ...c.median_seconds.map((s) => (s === null ? '' : s.toFixed(1)))].map((x) => el('td', { text: x }))));
  }
}

function departures(d) {
  const box = $('player-departures');
  box.replaceChildren();
  for (const x of d.departures) {
    const item = el('figure', { class: 'departure' });
    const shapes = [{ orig: x.uci.slice(0, 2), dest: x.uci.slice(2, 4), brush: 'green' }];
    smallBoard(item, x.fen, { shapes, orientation: x.fen.split(' ')[1] === 'w' ? 'white' : 'black' });
    item.append(el('figcaption', { text: `After ${x.after}: ${x.plays} in ${x.games} of ${x.of} games; the crowd ${(100 * x.generic).toFixed(0)} %` }));
    box.append(item);
  }
  if (!d.departures.length) box.append(el('p', { text: 'No position of their repertoire where they depart from the crowd.' }));
}

$('player-select').addEventListener('change', () => { window.location.hash = `#player/${$('player-select').value}`; });
$('tree-white').addEventListener('click', () => { colour = 'white'; path = ''; tree(); });
$('tree-black').addEventListener('click', () => { colour = 'black'; path = ''; tree(); });
