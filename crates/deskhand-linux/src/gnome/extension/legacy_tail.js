
function init() {
    return new DeskhandExtension();
}
