// The play page: a board (chessground), the engine's opponents, and why each engine move.
import { Chessground } from '/assets/chessground.min.js';

const $ = (id) => document.getElementById(id);
let game = null;      // the game's view, as the server last sent it
let pending = null;   // a promotion waiting for its piece: [from, to]

const board = Chessground($('board'), {
  movable: { free: false, color: undefined, showDests: true },
  premovable: { enabled: false },
  events: { move: onUserMove },
});

async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(json.error || res.statusText);
  return json;
}

function say(text) { $('status').textContent = text; }
function fail(e) { $('error').textContent = String(e.message || e); }

async function loadOpponents() {
  const o = await api('GET', '/api/opponents');
  const select = $('opponent');
  const add = (value, text) => {
    const opt = document.createElement('option');
    opt.value = JSON.stringify(value);
    opt.textContent = text;
    select.appendChild(opt);
  };
  add({ kind: 'default' }, 'The default style');
  for (const elo of o.levels) add({ kind: 'level', elo }, `Level ${elo}`);
  for (const p of o.players) add({ kind: 'player', id: p.id }, `Player: ${p.name}`);
  const l1400 = [...select.options].find((x) => x.textContent === 'Level 1400');
  if (l1400) l1400.selected = true;
}

async function start() {
  $('error').textContent = '';
  say('The engine is thinking…');
  board.set({ movable: { color: undefined } });
  try {
    game = await api('POST', '/api/games', {
      opponent: JSON.parse($('opponent').value),
      color: $('color').value,
      movetime_ms: Number($('movetime').value),
    });
    board.set({ orientation: $('color').value });
    render();
  } catch (e) { fail(e); }
}

function onUserMove(from, to) {
  const piece = board.state.pieces.get(to);
  if (piece && piece.role === 'pawn' && (to[1] === '8' || to[1] === '1')) {
    pending = [from, to];
    $('promotion').hidden = false;
    return;
  }
  send(from + to);
}

async function send(uci) {
  $('error').textContent = '';
  say('The engine is thinking…');
  board.set({ movable: { color: undefined } });
  try {
    game = await api('POST', `/api/games/${game.id}/move`, { move: uci });
  } catch (e) {
    fail(e);
    game = await api('GET', `/api/games/${game.id}`);
  }
  render();
}

function render() {
  window.precedentGame = game; // for the browser test
  const userTurn = !game.result && game.turn !== game.engine;
  const lastUci = game.moves[game.moves.length - 1];
  board.set({
    fen: game.fen,
    turnColor: game.turn,
    check: game.check,
    lastMove: lastUci ? [lastUci.slice(0, 2), lastUci.slice(2, 4)] : undefined,
    movable: {
      color: userTurn ? game.turn : undefined,
      dests: new Map(Object.entries(game.dests || {})),
    },
  });
  say(game.result ? `Game over: ${game.result}` : userTurn ? 'Your move' : 'The engine is thinking…');
  $('moves').textContent = game.san
    .map((s, i) => (i % 2 === 0 ? `${i / 2 + 1}. ${s}` : s))
    .join(' ');
  $('pgn').hidden = !game.result;
  $('pgn').value = game.pgn;
  renderWhy(game.last);
}

function renderWhy(last) {
  $('why-move').textContent = last ? last.san : '';
  const probs = $('probabilities');
  probs.replaceChildren();
  for (const [mv, p] of (last ? last.probabilities : []).slice(0, 5)) {
    const li = document.createElement('li');
    li.textContent = `${mv} ${(100 * p).toFixed(0)} %`;
    const bar = document.createElement('span');
    bar.className = 'bar';
    bar.style.width = `${Math.round(160 * p)}px`;
    li.appendChild(bar);
    probs.appendChild(li);
  }
  const lines = $('explanation');
  lines.replaceChildren();
  for (const line of last ? last.explanation : []) {
    const li = document.createElement('li');
    li.textContent = line;
    lines.appendChild(li);
  }
  const list = $('precedents');
  list.replaceChildren();
  for (const c of last ? last.precedents : []) {
    const li = document.createElement('li');
    const who = `${c.white}${c.white_elo ? ` (${c.white_elo})` : ''} – ${c.black}${c.black_elo ? ` (${c.black_elo})` : ''}`;
    const when = [c.event, c.date].filter(Boolean).join(', ');
    const how = c.exact ? 'this very position' : `similarity ${c.similarity.toFixed(2)}`;
    const text = `${who}, ${when}: played ${c.move}${c.adapted !== c.move ? ` (here ${c.adapted})` : ''}, ${how}`;
    if (c.site && c.site.startsWith('https://')) {
      const a = document.createElement('a');
      a.href = `${c.site}#${c.ply}`;
      a.target = '_blank';
      a.rel = 'noopener';
      a.textContent = text;
      li.appendChild(a);
    } else {
      li.textContent = text;
    }
    list.appendChild(li);
  }
}

for (const b of document.querySelectorAll('#promotion button')) {
  b.addEventListener('click', () => {
    $('promotion').hidden = true;
    if (pending) send(pending[0] + pending[1] + b.dataset.piece);
    pending = null;
  });
}
$('start').addEventListener('click', start);
$('flip').addEventListener('click', () => board.toggleOrientation());
loadOpponents().catch(fail);
