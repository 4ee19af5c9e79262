// The analysis page: a pasted game's moves, each with how likely the chosen level, player or
// style was to play it, the likeliest alternative, its precedent and (with a judge) its loss;
// a chart of the game by likelihood. A precedent's game opens here at its move.
import { Chessground } from '/assets/chessground.min.js';
import { $, api, el, fileInto, precedentItem } from '/assets/ui.js';

const board = Chessground($('analyse-board'), { viewOnly: true, coordinates: true });
let analysis = null;  // the server's analysis
let at = 0;           // the ply shown (the position before it)

function say(text) { $('analyse-status').textContent = text; }
function fail(e) { $('analyse-error').textContent = String(e.message || e); say(''); }

async function run() {
  $('analyse-error').textContent = '';
  const pgn = $('analyse-pgn').value;
  if (!pgn.trim()) { fail('Paste a game first.'); return; }
  say('Analysing… (each move is thought about as in play)');
  $('analyse-run').disabled = true;
  try {
    analysis = await api('POST', '/api/analyses', {
      pgn,
      opponent: JSON.parse($('analyse-opponent').value),
      sides: $('analyse-sides').value,
      movetime_ms: Number($('analyse-time').value),
    });
    window.precedentAnalysis = analysis; // for the browser test
    show(analysis.moves.length ? analysis.moves[0].ply : 0);
    say('');
  } catch (e) { fail(e); }
  $('analyse-run').disabled = false;
}

function show(ply) {
  const a = analysis;
  $('analyse-result').hidden = false;
  board.redrawAll();
  $('analyse-title').textContent = `${a.white || '?'} – ${a.black || '?'}${a.event ? `, ${a.event}` : ''}${a.date ? `, ${a.date}` : ''} ${a.result}`;
  const ll = a.mean_log_likelihood;
  $('analyse-summary').textContent = a.moves.length
    ? `${a.moves.length} moves as ${a.opponent} would play them: ${(100 * a.top1).toFixed(0)} % were its likeliest move; ` +
      `mean log-likelihood ${ll.toFixed(2)} a move (a typical move ${(100 * Math.exp(ll)).toFixed(0)} % likely)` +
      (a.judge ? `; losses by ${a.judge}` : '; start the server with --judge to see each move\'s loss')
    : 'No move analysed.';
  chart();
  at = ply;
  draw();
}

// One bar a move: its probability, White's up and Black's down; a move's loss in red.
function chart() {
  const a = analysis;
  const box = $('analyse-chart');
  box.replaceChildren();
  const n = Math.max(a.san.length, 1);
  const w = 720;
  const h = 160;
  const bw = w / n;
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  svg.setAttribute('role', 'img');
  const mid = h / 2;
  const line = document.createElementNS(ns, 'line');
  Object.entries({ x1: 0, x2: w, y1: mid, y2: mid, stroke: '#888' }).forEach(([k, v]) => line.setAttribute(k, v));
  svg.append(line);
  for (const m of a.moves) {
    const r = document.createElementNS(ns, 'rect');
    const len = (mid - 4) * m.probability;
    const white = m.side === 'white';
    const bad = m.loss_cp !== null && m.loss_cp >= 200;
    Object.entries({
      x: m.ply * bw + 0.5, width: Math.max(bw - 1, 1),
      y: white ? mid - len : mid, height: Math.max(len, 1),
      fill: bad ? '#c0392b' : white ? '#7a9b57' : '#4a6a8a',
      class: 'move-bar', 'data-ply': m.ply,
    }).forEach(([k, v]) => r.setAttribute(k, v));
    const t = document.createElementNS(ns, 'title');
    t.textContent = `${moveNumber(m.ply)}${white ? '.' : '...'} ${m.san}: ${(100 * m.probability).toFixed(0)} %`;
    r.append(t);
    r.addEventListener('click', () => { at = m.ply; draw(); });
    svg.append(r);
  }
  box.append(svg);
}

function draw() {
  const a = analysis;
  const m = a.moves.find((x) => x.ply === at);
  const fen = m ? m.fen : null;
  if (fen) {
    const shapes = [{ orig: m.uci.slice(0, 2), dest: m.uci.slice(2, 4), brush: 'green' }];
    board.set({ fen, lastMove: undefined, drawable: { autoShapes: [] } });
    // The arrow once the board has its size.
    const wrap = $('analyse-board');
    requestAnimationFrame(() => wrap.offsetWidth > 0 && board.set({ drawable: { autoShapes: shapes } }));
  }
  const line = $('analyse-line');
  line.replaceChildren();
  a.san.forEach((s, i) => {
    const whiteMoves = (a.first_ply + i) % 2 === 0;
    if (whiteMoves) line.append(`${moveNumber(i)}. `);
    else if (i === 0) line.append(`${moveNumber(i)}... `);
    const known = a.moves.some((x) => x.ply === i);
    const link = el('a', { href: '#analyse', text: s, class: i === at ? 'current' : known ? undefined : 'unjudged' });
    link.addEventListener('click', (ev) => { ev.preventDefault(); if (known) { at = i; draw(); } });
    line.append(link, ' ');
  });
  const side = $('analyse-move');
  side.replaceChildren();
  if (!m) return;
  side.append(el('h2', { text: `${moveNumber(m.ply)}${m.side === 'white' ? '.' : '...'} ${m.san}` }));
  side.append(el('p', { text: `${(100 * m.probability).toFixed(1)} % likely for ${a.opponent} (its ${ordinal(m.rank)} choice of ${m.legal})` + (m.loss_cp !== null ? `; it loses ${m.loss_cp} cp` : '') }));
  if (m.alternative) {
    const [alt, p] = m.alternative;
    side.append(el('p', { text: `Likeliest alternative: ${alt} (${(100 * p).toFixed(1)} %)` + (m.alternative_loss_cp !== null ? `, loses ${m.alternative_loss_cp} cp` : '') }));
  }
  if (m.precedent) {
    side.append(el('h3', { text: 'The precedent behind it' }));
    side.append(el('ol', { class: 'precedents' }, [precedentItem(m.precedent, { side: m.side, orientation: m.side })]));
  }
}

// The move number of ply `ply` of the analysed game (it may start from a set-up position).
function moveNumber(ply) {
  return Math.floor((analysis.first_ply + ply) / 2) + 1;
}

function ordinal(n) {
  const s = ['th', 'st', 'nd', 'rd'];
  const v = n % 100;
  return n + (s[(v - 20) % 10] || s[v] || s[0]);
}

function step(d) {
  if (!analysis) return;
  const plies = analysis.moves.map((x) => x.ply);
  const i = plies.indexOf(at);
  const j = d === -Infinity ? 0 : d === Infinity ? plies.length - 1 : Math.min(Math.max(i + d, 0), plies.length - 1);
  at = plies[j];
  draw();
}

// Opens a precedent's game (from a link `#game/BASE/GAME/PLY`) to analyse, at that move.
// The board measured again once its page shows.
export function redraw() { if (analysis) board.redrawAll(); }

export async function openGame(base, index, ply) {
  $('analyse-error').textContent = '';
  try {
    const g = await api('GET', `/api/casegames/${base}/${index}`);
    $('analyse-pgn').value = g.pgn;
    const side = ply % 2 === 0 ? 'white' : 'black';
    say(`${g.white} – ${g.black}: the precedent is move ${Math.floor(ply / 2) + 1} (${side}'s). Analysing the game…`);
    await run();
    if (analysis && analysis.moves.some((x) => x.ply === ply)) { at = ply; draw(); }
  } catch (e) { fail(e); }
}

fileInto($('analyse-file'), $('analyse-pgn'));
$('analyse-run').addEventListener('click', run);
$('analyse-first').addEventListener('click', () => step(-Infinity));
$('analyse-prev').addEventListener('click', () => step(-1));
$('analyse-next').addEventListener('click', () => step(1));
$('analyse-last').addEventListener('click', () => step(Infinity));
