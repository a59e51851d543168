# Only the environment: a .pth file in the repository's virtualenv (git-ignored) that patches
# Timeout.shift at interpreter start-up. No tracked file changes.
sp=$(ls -d "$REPO"/.venv/lib/python3*/site-packages)
cat > "$sp/zz_shift_fix.pth" <<'PTH'
import async_timeout as a; a.Timeout.shift = lambda self, delay: self.update(self._deadline + delay) if self._deadline is not None else (_ for _ in ()).throw(RuntimeError("cannot shift timeout if deadline is not scheduled"))
PTH
