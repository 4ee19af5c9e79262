"""Plays through `precedent serve`'s page in a real, headless Chromium: a game against a level
and one against a player file, by clicks on the board, checking that each engine move shows
its precedents; screenshots at desktop and phone width.

Usage: play.py URL SCREENSHOT_DIR PLAYER_NAME
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


def driver():
    opts = Options()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


def wait_user_turn(d, timeout=60):
    WebDriverWait(d, timeout).until(
        lambda d: d.find_element(By.ID, "status").text in ("Your move",)
        or d.find_element(By.ID, "status").text.startswith("Game over")
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
    return d.execute_script("return window.precedentGame ? window.precedentGame.moves : null")


def play_game(d, url, opponent_text, color, plies):
    d.get(url)
    WebDriverWait(d, 20).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#opponent option")) > 1)
    Select(d.find_element(By.ID, "opponent")).select_by_visible_text(opponent_text)
    Select(d.find_element(By.ID, "color")).select_by_value(color)
    Select(d.find_element(By.ID, "movetime")).select_by_value("300")
    d.find_element(By.ID, "start").click()
    for _ in range(plies):
        wait_user_turn(d)
        if d.find_element(By.ID, "status").text.startswith("Game over"):
            break
        moves = moves_played(d)
        if moves:
            # The engine has moved: its precedents are shown, each a game.
            precedents = d.find_elements(By.CSS_SELECTOR, "#precedents li")
            assert precedents, f"{opponent_text}: no precedent shown after {moves}"
            assert " – " in precedents[0].text, precedents[0].text
        board = chess.Board()
        for m in moves:
            board.push_uci(m)
        # A legal move, not a promotion: the first in the usual order.
        move = next(m for m in board.legal_moves if m.promotion is None)
        click_square(d, move.from_square, color)
        click_square(d, move.to_square, color)
        WebDriverWait(d, 60).until(lambda d: len(moves_played(d) or []) > len(moves))
    wait_user_turn(d)
    assert d.find_elements(By.CSS_SELECTOR, "#precedents li"), "no precedents at the end"


def main():
    url, shots, player = sys.argv[1], sys.argv[2], sys.argv[3]
    d = driver()
    try:
        play_game(d, url, "Level 1400", "white", 6)
        d.save_screenshot(f"{shots}/play-desktop.png")
        play_game(d, url, f"Player: {player}", "black", 4)
        d.set_window_size(390, 1400)
        time.sleep(0.3)
        d.save_screenshot(f"{shots}/play-phone.png")
        errors = d.find_element(By.ID, "error").text
        assert not errors, errors
    finally:
        d.quit()


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # noqa: BLE001 - the one line a test reads
        print(f"browser test failed: {type(e).__name__}: {e}".replace("\n", " "), file=sys.stderr)
        sys.exit(1)
