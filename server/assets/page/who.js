// The who page: pasted games, and the loaded player files ranked by how well each explains
// one player's moves in them.
import { $, api, el, fileInto } from '/assets/ui.js';

function say(text) { $('who-status').textContent = text; }
function fail(e) { $('who-error').textContent = String(e.message || e); say(''); }

async function run() {
  $('who-error').textContent = '';
  const pgn = $('who-pgn').value;
  if (!pgn.trim()) { fail('Paste some games first.'); return; }
  say('Weighing each player file…');
  try {
    const player = $('who-player').value.trim();
    const r = await api('POST', '/api/who', { pgn, player: player || undefined });
    window.precedentWho = r; // for the browser test
    render(r);
    say(`${r.moves} moves of ${r.player} in ${r.games} games${r.skipped.length ? ` (${r.skipped.length} games could not be read: ${r.skipped[0]})` : ''}.`);
  } catch (e) { fail(e); }
}

function render(r) {
  const t = $('who-ranking');
  t.hidden = false;
  t.replaceChildren(el('tr', {}, ['', 'Player file', 'Mean log-likelihood a move', 'Behind the first', ''].map((h) => el('th', { text: h }))));
  const worst = Math.max(...r.ranking.map((x) => x.behind), 1e-9);
  r.ranking.forEach((x, i) => {
    const bar = el('span', { class: 'bar', style: `width:${Math.round(160 * (1 - x.behind / worst)) + 4}px` });
    t.append(el('tr', { class: i === 0 ? 'first' : undefined }, [
      el('td', { text: i + 1 }),
      el('td', { text: x.name }),
      el('td', { text: x.mean_log_likelihood.toFixed(3) }),
      el('td', { text: i === 0 ? '' : `-${x.behind.toFixed(3)}` }),
      el('td', {}, [bar]),
    ]));
  });
}

fileInto($('who-file'), $('who-pgn'));
$('who-run').addEventListener('click', run);
