/** The scheduler customizer against Spring Boot 4's Quartz API. <b>Internal to fenced.</b> */
package dev.fenced.internal.spring.quartz.boot4;
