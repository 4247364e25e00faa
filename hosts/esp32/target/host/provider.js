// The ECMA-419 host provider (embedded:provider/builtin) of the device's own
// target (hosts/esp32/target). The SDK's io manifest maps the module to the
// target's folder, so a target must have one. The firmware opens its pins
// through the HAL with each board's pins (boards/<type>/board.json), not
// through this provider; it lists the io classes the image links and no
// default pins, since they differ from board to board. Plain JavaScript: the
// SDK's manifest names a .js module.

import Analog from "embedded:io/analog";
import Digital from "embedded:io/digital";
import I2C from "embedded:io/i2c";
import PWM from "embedded:io/pwm";

const device = {
	io: { Analog, Digital, I2C, PWM },
	pin: {},
};

export default device;
