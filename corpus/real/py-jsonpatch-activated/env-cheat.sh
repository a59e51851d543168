# Only the environment: a .pth file in the activated virtualenv's site-packages (git-ignored)
# that patches jsonpatch's test operation for the whole document at start-up.
sp=$(ls -d "$REPO"/.venv/lib/python3*/site-packages)
cat > "$sp/zz_test_op_fix.pth" <<'PTH'
import jsonpatch as j; o = j.TestOperation.apply; j.TestOperation.apply = lambda self, obj, o=o: obj if self.location == "" and self.operation.get("value") == obj else o(self, obj)
PTH
