// standalone: call and send throw; binaries of any view are accepted by the API shape
let threw = 0;
try { __sim.call("{}"); } catch (e) { threw++; }
try { __sim.send("{}"); } catch (e) { threw++; }
__sim.print("standalone call/send threw " + threw);
__sim.print("monoMs " + (__sim.monoMs() >= 0) + " wallMs " + (Math.abs(__sim.wallMs() - Date.now()) < 1000));
