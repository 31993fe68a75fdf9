import nodemailer from 'nodemailer';
import type { MailSettings } from '../config.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail; the server has one only when an operator configured SMTP. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** Mail through the operator's SMTP server, as plain text. */
export function smtpMailer(settings: MailSettings): Mailer {
  const transport = nodemailer.createTransport(settings.smtpUrl);
  return {
    async send(message) {
      await transport.sendMail({ from: settings.from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}
