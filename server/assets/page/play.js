// The play page: a board against a level, the default style or a player file, with a clock,
// takeback, draw and resignation, and why each engine move, with its precedents.
import { Chessground } from '/assets/chessground.min.js';
import { $, api, el, precedentItem } from '/assets/ui.js';

let game = null;      // the game's view, as the server last sent it
let pending = null;   // a promotion waiting for its piece: [from, to]
let shown = null;     // the ply whose why is shown (null: the last engine move)
let ticking = null;   // the clock's timer
let clockSince = 0;   // when the clocks shown were last read
let current = null;   // the id of the game shown (a late answer about another is dropped)
let starts = 0;       // new games asked for (a late one's answer is dropped)

const board = Chessground($('board'), {
  movable: { free: false, color: undefined, showDests: true },
  premovable: { enabled: false },
  events: { move: onUserMove },
});

function say(text) { $('status').textContent = text; }
function fail(e) { $('error').textContent = String(e.message || e); }

async function start() {
  $('error').textContent = '';
  say('The engine is thinking…');
  board.set({ movable: { color: undefined } });
  const time = $('movetime').value;
  const body = { opponent: JSON.parse($('opponent').value), color: $('color').value };
  if (time.startsWith('clock:')) {
    const [initial, increment] = time.slice(6).split('+').map(Number);
    body.clock = { initial_s: initial, increment_s: increment };
    body.human_time = $('human-time').checked;
  } else {
    body.movetime_ms = Number(time);
  }
  shown = null;
  board.set({ orientation: $('color').value });
  const asked = ++starts;
  current = null;
  try {
    const started = await api('POST', '/api/games', body);
    if (asked !== starts) return;
    game = started;
    current = game.id;
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

// A request about the game shown; its answer shown unless another game has started since.
async function act(path, body) {
  $('error').textContent = '';
  const id = game.id;
  let next = null;
  try {
    next = await api('POST', `/api/games/${id}/${path}`, body || {});
  } catch (e) {
    fail(e);
    try { next = await api('GET', `/api/games/${id}`); } catch (again) { fail(again); }
  }
  if (!next || next.id !== current) return;
  game = next;
  shown = null;
  render();
}

function send(uci) {
  say('The engine is thinking…');
  board.set({ movable: { color: undefined } });
  for (const b of ['takeback', 'draw', 'resign']) $(b).disabled = true;
  // The user's clock stops (with its increment), the engine's runs while it thinks.
  const c = game.clock;
  if (c && c.running) {
    const key = c.running === 'white' ? 'white_ms' : 'black_ms';
    c[key] = Math.max(0, c[key] - (performance.now() - clockSince)) + 1000 * c.increment_s;
    c.running = game.engine;
    renderClocks();
  }
  act('move', { move: uci });
}

// The clocks: the server's times, the running one counted down here, the server asked when
// it reaches zero.
function renderClocks() {
  stopClock();
  const c = game.clock;
  for (const id of ['clock-top', 'clock-bottom']) $(id).hidden = !c;
  if (!c) return;
  const user = game.engine === 'white' ? 'black' : 'white';
  const bottom = board.state.orientation;
  const since = performance.now();
  clockSince = since;
  const show = () => {
    const left = (side) => {
      const ms = side === 'white' ? c.white_ms : c.black_ms;
      return c.running === side ? Math.max(0, ms - (performance.now() - since)) : ms;
    };
    for (const [id, side] of [['clock-bottom', bottom], ['clock-top', bottom === 'white' ? 'black' : 'white']]) {
      const ms = left(side);
      const s = Math.ceil(ms / 1000);
      const text = `${side === user ? 'You' : 'Engine'} ${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
      $(id).textContent = text;
      $(id).classList.toggle('running', c.running === side);
      $(id).classList.toggle('low', ms < 20000);
    }
    if (c.running === user && left(user) <= 0) {
      stopClock();
      api('GET', `/api/games/${game.id}`)
        .then((g) => { if (g.id === current) { game = g; render(); } })
        .catch(fail);
    }
  };
  show();
  if (c.running) ticking = setInterval(show, 200);
}

function stopClock() {
  if (ticking) clearInterval(ticking);
  ticking = null;
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
  const notice = game.notice ? ` ${game.notice}` : '';
  say((game.result ? `Game over: ${game.result}` : userTurn ? 'Your move' : 'The engine is thinking…') + notice);
  const userMoved = game.moves.some((_, i) => (i % 2 === 0) === (game.engine === 'black'));
  $('takeback').disabled = !userMoved || /resigned|time|agreed/.test(game.result || '');
  $('draw').disabled = !!game.result;
  $('resign').disabled = !!game.result;
  renderMoves();
  $('pgn').hidden = !game.result;
  $('pgn').value = game.pgn;
  renderClocks();
  renderWhy(game.last);
}

// The moves; the engine's are links to their why.
function renderMoves() {
  const list = $('moves');
  list.replaceChildren();
  game.san.forEach((s, i) => {
    if (i % 2 === 0) list.append(`${i / 2 + 1}. `);
    if (game.engine_plies.includes(i)) {
      const a = el('a', { href: '#play', text: s, class: i === shown ? 'current' : undefined });
      a.addEventListener('click', async (ev) => {
        ev.preventDefault();
        try {
          shown = i;
          renderWhy(await api('GET', `/api/games/${game.id}/why/${i}`));
          renderMoves();
        } catch (e) { fail(e); }
      });
      list.append(a, ' ');
    } else {
      list.append(`${s} `);
    }
  });
}

function renderWhy(last) {
  $('why-move').textContent = last ? last.san : '';
  const probs = $('probabilities');
  probs.replaceChildren();
  for (const [mv, p] of (last ? last.probabilities : []).slice(0, 5)) {
    probs.append(el('li', {}, [
      `${mv} ${(100 * p).toFixed(0)} %`,
      el('span', { class: 'bar', style: `width:${Math.round(160 * p)}px` }),
    ]));
  }
  const lines = $('explanation');
  lines.replaceChildren(...(last ? last.explanation : []).map((l) => el('li', { text: l })));
  const list = $('precedents');
  list.replaceChildren();
  const orientation = board.state.orientation;
  (last ? last.precedents : []).forEach((c, i) => {
    list.append(precedentItem(c, { board: i < 3, orientation, side: game.engine }));
  });
}

for (const b of document.querySelectorAll('#promotion button')) {
  b.addEventListener('click', () => {
    $('promotion').hidden = true;
    if (pending) send(pending[0] + pending[1] + b.dataset.piece);
    pending = null;
  });
}
$('start').addEventListener('click', start);
$('flip').addEventListener('click', () => { board.toggleOrientation(); if (game) renderClocks(); });
$('takeback').addEventListener('click', () => act('takeback'));
$('draw').addEventListener('click', () => act('draw'));
$('resign').addEventListener('click', () => {
  if (window.confirm('Resign this game?')) act('resign');
});
