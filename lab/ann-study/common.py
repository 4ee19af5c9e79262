"""Shared helpers: read case-base boards, encode to 768-bit Hamming codes, extract query boards."""
import io, os, random, struct, subprocess
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# Where the study writes its queries, ground truth and results; the inputs (override by env).
OUT = os.environ.get('ANN_OUT', os.path.join(HERE, 'out'))
MASTERS = os.environ.get('MASTERS_PGN', os.path.join(HERE, '../../../shared/data/masters-otb.pgn.zst'))
CASEBASES = {'default': os.environ.get('DEFAULT_CB', 'default.cb'),
             'pool': os.environ.get('POOL_CB', 'pool.cb')}

def read_header(path):
    with open(path, 'rb') as f:
        h = f.read(256)
    u = lambda off: struct.unpack_from('<Q', h, off)[0]
    return dict(boards_off=u(40), boards=u(136), white_boards=u(144))

def load_white_boards(path):
    """Return (n,4) uint64 array [white, r0, r1, r2] of White-to-move boards."""
    h = read_header(path)
    n = h['white_boards']
    a = np.fromfile(path, dtype='<u8', count=4 * n, offset=h['boards_off'])
    return a.reshape(n, 4), h

def encode(b4):
    """(n,4) uint64 [white,r0,r1,r2] -> (n,96) uint8 codes (12 little-endian u64 planes)."""
    b4 = np.asarray(b4, dtype=np.uint64)
    w, r0, r1, r2 = (b4[:, i] for i in range(4))
    occ = r0 | r1 | r2
    n0, n1, n2 = ~r0, ~r1, ~r2
    planes = [
        r0 & n1 & n2,  # role 1 pawn
        n0 & r1 & n2,  # role 2 knight
        r0 & r1 & n2,  # role 3 bishop
        n0 & n1 & r2,  # role 4 rook
        r0 & n1 & r2,  # role 5 queen
        n0 & r1 & r2,  # role 6 king
    ]
    notwhite = ~(w & occ)
    black = occ & ~w
    planes += [notwhite] * 3 + [black] * 3
    codes = np.stack(planes, axis=1).astype('<u8')
    return np.ascontiguousarray(codes).view(np.uint8).reshape(len(b4), 96)

def similarity_direct(a, b):
    """Per-square engine similarity for two boards given as 4-tuples of python ints."""
    s = 0
    for sq in range(64):
        m = 1 << sq
        def piece(bd):
            w, r0, r1, r2 = bd
            role = (1 if r0 & m else 0) + (2 if r1 & m else 0) + (4 if r2 & m else 0)
            if role == 0:
                return None
            return (role, bool(w & m))
        pa, pb = piece(a), piece(b)
        if pa == pb:  # same piece or both empty
            s += 4
        elif pa is None or pb is None:
            s += 2
        elif pa[1] == pb[1]:  # same colour, different type
            s += 3
        elif pa[0] == pb[0]:  # same type, different colour
            s += 1
        else:
            s += 0
    return s

def hamming_np(q, X):
    """q: (96,) uint8, X: (m,96) uint8 -> (m,) int Hamming distances."""
    return np.bitwise_count(np.bitwise_xor(X, q[None, :])).sum(axis=1).astype(np.int64)

def board_to_b4(board):
    import chess
    white = int(board.occupied_co[chess.WHITE])
    r = [0, 0, 0]
    for pt in range(1, 7):
        bb = int(board.pieces_mask(pt, chess.WHITE) | board.pieces_mask(pt, chess.BLACK))
        for bit in range(3):
            if pt >> bit & 1:
                r[bit] |= bb
    return (white, r[0], r[1], r[2])

def masters_game_texts():
    txt = subprocess.run(['zstd', '-dc', MASTERS], capture_output=True, check=True).stdout.decode('utf-8', 'replace')
    parts = txt.split('\n[Event ')
    games = [parts[0]] + ['[Event ' + p for p in parts[1:]]
    return [g for g in games if g.strip()]

def white_positions(game_text, min_ply=10):
    """List of (ply, b4) for White-to-move positions at ply >= min_ply (ply = half-moves played)."""
    import chess.pgn
    g = chess.pgn.read_game(io.StringIO(game_text))
    if g is None:
        return []
    out = []
    board = g.board()
    ply = 0
    for mv in g.mainline_moves():
        board.push(mv)
        ply += 1
        if ply >= min_ply and board.turn == chess.WHITE:
            out.append((ply, board_to_b4(board)))
    return out
