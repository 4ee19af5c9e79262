// The pages of `precedent serve`, one at a time by the address's #: play, analyse (and a
// precedent's game, #game/BASE/GAME/PLY), a player's dossier (#player/ID), who.
import { $, loadOpponents } from '/assets/ui.js';
import '/assets/play.js';
import { openGame, redraw } from '/assets/analyse.js';
import { fillPlayers, open as openPlayer } from '/assets/player.js';
import '/assets/who.js';

let opponents = null;

async function route() {
  const [view, ...rest] = (window.location.hash.slice(1) || 'play').split('/');
  const page = view === 'game' ? 'analyse' : ['play', 'analyse', 'player', 'who'].includes(view) ? view : 'play';
  for (const s of document.querySelectorAll('.view')) s.hidden = s.id !== `view-${page}`;
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('current', a.dataset.view === page);
  if (page === 'analyse') redraw();
  if (view === 'game' && rest.length === 3) openGame(rest[0], Number(rest[1]), Number(rest[2]));
  if (view === 'player' && opponents) openPlayer(rest[0]);
}

window.addEventListener('hashchange', route);
loadOpponents()
  .then((o) => { opponents = o; fillPlayers(o); route(); })
  .catch((e) => { $('error').textContent = String(e.message || e); });
