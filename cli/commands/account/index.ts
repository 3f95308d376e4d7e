export { loginCommand } from './login.js';
export { logoutCommand } from './logout.js';
