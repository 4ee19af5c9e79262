"""Goes through every page of `precedent serve` in a real, headless Chromium: a game against a
level and one against a player file, by clicks on the board, checking that each engine move
shows its precedents with their boards; a precedent's game opened from its link; an analysis of
a 40-move game pasted in; a player's dossier; who played a game. Screenshots of each page at
desktop and phone width.

Usage: pages.py URL SCREENSHOT_DIR PLAYER_NAME
Exit 0 when every check passed; otherwise the first failure on stderr, exit 1.
"""

import sys
import time

import chess
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

DESKTOP = (1280, 1700)
PHONE = (390, 1500)


def driver():
    opts = Options()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={DESKTOP[0]},{DESKTOP[1]}"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


def js(d, script, *args):
    return d.execute_script(script, *args)


def wait_for(d, script, timeout=120):
    WebDriverWait(d, timeout).until(lambda d: js(d, script))


def wait_user_turn(d, timeout=60):
    WebDriverWait(d, timeout).until(
        lambda d: d.find_element(By.ID, "status").text.startswith(("Your move", "Game over"))
    )


def click_square(d, square, orientation):
    board = d.find_element(By.ID, "board")
    size = board.size["width"] / 8
    f, r = chess.square_file(square), chess.square_rank(square)
    x = (f if orientation == "white" else 7 - f) * size + size / 2
    y = (7 - r if orientation == "white" else r) * size + size / 2
    ActionChains(d).move_to_element_with_offset(
        board, x - board.size["width"] / 2, y - board.size["height"] / 2
    ).click().perform()


def moves_played(d):
    return js(d, "return window.precedentGame ? window.precedentGame.moves : null")


def check_precedents(d, where):
    """The engine's move shows its precedents, the first with a board of the position it
    remembers and a link to its game."""
    precedents = d.find_elements(By.CSS_SELECTOR, "#precedents li")
    assert precedents, f"{where}: no precedent shown"
    assert " – " in precedents[0].text, precedents[0].text
    assert precedents[0].find_elements(By.CSS_SELECTOR, ".board cg-board"), f"{where}: no board"
    links = precedents[0].find_elements(By.PARTIAL_LINK_TEXT, "open the game")
    assert links, f"{where}: no link to the game"


def play_game(d, url, opponent_text, color, plies, time_value="300"):
    d.get(url + "#play")
    WebDriverWait(d, 20).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#opponent option")) > 1)
    Select(d.find_element(By.ID, "opponent")).select_by_visible_text(opponent_text)
    Select(d.find_element(By.ID, "color")).select_by_value(color)
    Select(d.find_element(By.ID, "movetime")).select_by_value(time_value)
    js(d, "window.precedentGame = null")
    d.find_element(By.ID, "start").click()
    wait_for(d, "return !!window.precedentGame")
    for _ in range(plies):
        wait_user_turn(d)
        if d.find_element(By.ID, "status").text.startswith("Game over"):
            break
        moves = moves_played(d)
        if moves:
            check_precedents(d, f"{opponent_text} after {moves}")
        board = chess.Board()
        for m in moves:
            board.push_uci(m)
        # A legal move, not a promotion: the first in the usual order.
        move = next(m for m in board.legal_moves if m.promotion is None)
        click_square(d, move.from_square, color)
        click_square(d, move.to_square, color)
        WebDriverWait(d, 60).until(lambda d: len(moves_played(d) or []) > len(moves))
    wait_user_turn(d)
    check_precedents(d, f"{opponent_text} at the end")


def shoot(d, shots, name):
    """Screenshots of the page at desktop width and, emulated, at a phone's, where nothing may
    stick out sideways."""
    time.sleep(0.5)
    d.save_screenshot(f"{shots}/{name}-desktop.png")
    d.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 1, "mobile": True},
    )
    time.sleep(0.5)
    width, inner = js(d, "return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"{name}: the page is {width} px wide in a {inner} px phone screen"
    d.save_screenshot(f"{shots}/{name}-phone.png")
    d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    time.sleep(0.3)


def main():
    url, shots, player = sys.argv[1], sys.argv[2], sys.argv[3]
    d = driver()
    try:
        # Play: a level with a clock, then the player file.
        play_game(d, url, "Level 1400", "white", 5, "clock:180+2")
        clocks = d.find_element(By.ID, "clock-bottom").text
        assert clocks.startswith("You "), clocks
        shoot(d, shots, "play")
        play_game(d, url, f"Player: {player}", "black", 4)
        # Take back the last move and the reply.
        before = len(moves_played(d))
        d.find_element(By.ID, "takeback").click()
        WebDriverWait(d, 20).until(lambda d: len(moves_played(d)) == before - 2)

        # A precedent's game, opened from its link: analysed, at the remembered move.
        d.find_element(By.CSS_SELECTOR, "#precedents li a[href^='#game/']").click()
        wait_for(d, "return !!window.precedentAnalysis && !document.getElementById('view-analyse').hidden")

        # Analyse: a 40-move game pasted in, as the player file would play it.
        pgn = d.execute_async_script(
            """const done = arguments[arguments.length - 1];
            (async () => {
                let best = null;
                for (let i = 0; i < 40; i++) {
                    const r = await fetch(`/api/casegames/player0/${i}`);
                    if (!r.ok) break;
                    const g = await r.json();
                    if (!best || g.san.length > best.san.length) best = g;
                }
                done(best.pgn);
            })();"""
        )
        d.get(url + "#analyse")
        js(d, "window.precedentAnalysis = null; document.getElementById('analyse-pgn').value = arguments[0]", pgn)
        Select(d.find_element(By.ID, "analyse-opponent")).select_by_visible_text(f"Player: {player}")
        Select(d.find_element(By.ID, "analyse-time")).select_by_value("50")
        d.find_element(By.ID, "analyse-run").click()
        wait_for(d, "return !!window.precedentAnalysis")
        analysed = js(d, "return window.precedentAnalysis.moves.length")
        assert analysed >= 80, f"{analysed} moves analysed"
        bars = d.find_elements(By.CSS_SELECTOR, "#analyse-chart rect.move-bar")
        assert len(bars) == analysed, f"{len(bars)} bars for {analysed} moves"
        bars[20].click()
        side = d.find_element(By.ID, "analyse-move").text
        assert "likely for" in side, side
        assert d.find_elements(By.CSS_SELECTOR, "#analyse-move .precedent .board"), "no precedent board"
        shoot(d, shots, "analyse")

        # The player's dossier: the openings tree clicked through, the departures as boards.
        d.get(url + "#player/0")
        wait_for(d, "return !!window.precedentDossier")
        assert player in d.find_element(By.ID, "player-name").text
        rows = d.find_elements(By.CSS_SELECTOR, "#tree-moves tbody tr a")
        assert rows, "no opening move"
        first = rows[0].text
        rows[0].click()
        path = d.find_element(By.ID, "tree-path").text
        assert first in path, f"{first} not in {path!r}"
        assert d.find_elements(By.CSS_SELECTOR, "#player-departures .board"), "no departure board"
        shoot(d, shots, "player")

        # Who: the same game; the player's file comes first.
        d.get(url + "#who")
        js(d, "window.precedentWho = null; document.getElementById('who-pgn').value = arguments[0]", pgn)
        d.find_element(By.ID, "who-player").send_keys(player)
        d.find_element(By.ID, "who-run").click()
        wait_for(d, "return !!window.precedentWho")
        top = js(d, "return window.precedentWho.ranking[0].name")
        assert top == player, f"who: {top} first"
        shoot(d, shots, "who")

        errors = [e for e in d.find_elements(By.CSS_SELECTOR, ".error") if e.text]
        assert not errors, errors[0].text
        # (The search above for the longest game ends on a 404, which the browser logs.)
        severe = [
            l["message"]
            for l in d.get_log("browser")
            if l["level"] == "SEVERE" and not ("/api/casegames/" in l["message"] and "404" in l["message"])
        ]
        assert not severe, severe[0]
    finally:
        d.quit()


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # noqa: BLE001 - the one line a test reads
        print(f"browser test failed: {type(e).__name__}: {e}".replace("\n", " "), file=sys.stderr)
        sys.exit(1)
