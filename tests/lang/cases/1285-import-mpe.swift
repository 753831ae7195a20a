// `import mpe;` is accepted and its logging calls are no-ops (§12).
import mpe;
metadata("phase one");
trace("ok");
