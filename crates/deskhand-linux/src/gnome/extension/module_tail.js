
export default class extends Extension {
    enable() {
        this._inner = new DeskhandExtension();
        this._inner.enable();
    }

    disable() {
        this._inner.disable();
        this._inner = null;
    }
}
